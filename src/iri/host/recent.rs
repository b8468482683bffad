//! The hosts each thread mapped through the slow path of [`super::dns`] lately, with what
//! that path wrote for them: a host seen again is written from here, without percent-decoding,
//! UTS #46 or Punycode again.
//!
//! Records name the same host over and over (a site's pages, a crawl's frontier, the
//! spellings of one URL), and a host that needs that path costs thousands of instructions
//! each time. The results are a function of the host text and what was asked for (the form
//! and whether the ASCII form was wanted too) and nothing else, so a result written from
//! here is the one the path would write: the cache is keyed by all three, compared in full.
//!
//! Bounded: [`SLOTS`] slots a thread, each one host of at most [`LONGEST`] bytes (longer
//! ones are not kept) and the forms written for it; a new host takes the slot of its hash.
//! Only successes are kept; a host that fails takes the path every time.

use std::cell::RefCell;

use super::{HostForm, Origin};

/// How many hosts a thread keeps.
const SLOTS: usize = 256;

/// The longest host kept, in bytes (a DNS name is at most 253 bytes of ASCII; a host
/// written with percent-encoded UTF-8 is longer).
const LONGEST: usize = 192;

/// One host and what the slow path wrote for it.
#[derive(Default)]
struct Slot {
    /// The host as the path was given it (empty: the slot is free; the path never keeps
    /// the empty host, which needs no work).
    host: String,
    form: Option<HostForm>,
    wants_ascii: bool,
    origin: Option<Origin>,
    /// What the path appended to its output.
    out: String,
    /// What it appended to the ASCII form's buffer, where that was wanted.
    ascii: String,
}

thread_local! {
    static RECENT: RefCell<Vec<Slot>> = const { RefCell::new(Vec::new()) };
}

/// The slot of `host`: a multiplicative hash of its bytes, eight at a time.
fn slot_of(host: &str) -> usize {
    let mut h: u64 = host.len() as u64;
    let mut chunks = host.as_bytes().chunks(8);
    for chunk in &mut chunks {
        let mut w = [0u8; 8];
        w[..chunk.len()].copy_from_slice(chunk);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    (h >> 56) as usize % SLOTS
}

/// Appends what the slow path wrote for `host` (asked for `form`, and for the ASCII form
/// too where `ascii` is given) when this thread keeps it; `None`, with nothing appended,
/// otherwise.
pub(super) fn replay(
    host: &str,
    form: HostForm,
    out: &mut String,
    ascii: Option<&mut String>,
) -> Option<Origin> {
    if host.len() > LONGEST {
        return None;
    }
    RECENT.with(|cell| {
        let slots = cell.try_borrow().ok()?;
        let slot = slots.get(slot_of(host))?;
        let same =
            slot.host == host && slot.form == Some(form) && slot.wants_ascii == ascii.is_some();
        if !same {
            return None;
        }
        out.push_str(&slot.out);
        if let Some(ascii) = ascii {
            ascii.push_str(&slot.ascii);
        }
        slot.origin
    })
}

/// Keeps what the slow path wrote for `host` (`out`, and `ascii` where the ASCII form was
/// wanted too) in the slot of its hash.
pub(super) fn keep(host: &str, form: HostForm, origin: Origin, out: &str, ascii: Option<&str>) {
    if host.is_empty() || host.len() > LONGEST {
        return;
    }
    RECENT.with(|cell| {
        let Ok(mut slots) = cell.try_borrow_mut() else {
            return;
        };
        if slots.is_empty() {
            slots.resize_with(SLOTS, Slot::default);
        }
        let slot = &mut slots[slot_of(host)];
        for (kept, text) in [(&mut slot.host, host), (&mut slot.out, out)] {
            kept.clear();
            kept.push_str(text);
        }
        slot.ascii.clear();
        slot.ascii.push_str(ascii.unwrap_or(""));
        slot.form = Some(form);
        slot.wants_ascii = ascii.is_some();
        slot.origin = Some(origin);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_host_is_replayed_only_as_it_was_asked() {
        keep(
            "Bücher.example",
            HostForm::Ascii,
            Origin::Uts46,
            "xn--bcher-kva.example",
            None,
        );
        let mut out = String::from(">");
        let origin = replay("Bücher.example", HostForm::Ascii, &mut out, None);
        assert_eq!(
            (origin, out.as_str()),
            (Some(Origin::Uts46), ">xn--bcher-kva.example")
        );
        // Another form, the ASCII form wanted too, another host: not kept.
        let mut other = String::new();
        assert_eq!(
            replay("Bücher.example", HostForm::Unicode, &mut other, None),
            None
        );
        assert_eq!(
            replay(
                "Bücher.example",
                HostForm::Ascii,
                &mut other,
                Some(&mut String::new())
            ),
            None
        );
        assert_eq!(
            replay("bücher.example", HostForm::Ascii, &mut other, None),
            None
        );
        assert!(other.is_empty());
    }

    #[test]
    fn both_forms_are_replayed() {
        keep(
            "xn--bcher-kva.de",
            HostForm::Unicode,
            Origin::Kept,
            "bücher.de",
            Some("xn--bcher-kva.de"),
        );
        let (mut out, mut ascii) = (String::new(), String::new());
        let origin = replay(
            "xn--bcher-kva.de",
            HostForm::Unicode,
            &mut out,
            Some(&mut ascii),
        );
        assert_eq!(
            (origin, out.as_str(), ascii.as_str()),
            (Some(Origin::Kept), "bücher.de", "xn--bcher-kva.de")
        );
    }

    #[test]
    fn long_hosts_are_not_kept() {
        let host = "é".repeat(LONGEST);
        keep(&host, HostForm::Ascii, Origin::Uts46, "x", None);
        assert_eq!(
            replay(&host, HostForm::Ascii, &mut String::new(), None),
            None
        );
    }

    #[test]
    fn slots_spread() {
        let used: std::collections::HashSet<usize> = (0..1000)
            .map(|i| slot_of(&format!("host{i}.example")))
            .collect();
        assert!(used.len() > SLOTS / 2, "{} slots of {SLOTS}", used.len());
    }
}
