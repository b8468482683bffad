//! Python 3.11's `idna` codec (`str.encode("idna")`): IDNA 2003 ToASCII (RFC 3490) with
//! Nameprep (RFC 3491) over Unicode 3.2, as both peers of the compatibility profiles use it.
//! (Placeholder: ASCII names only until the tables land.)

/// Appends `name.encode("idna")` to `out`; `Err(())` where Python raises `UnicodeError`
/// (`out` is then left as it was).
pub(crate) fn encode(name: &str, out: &mut Vec<u8>) -> Result<(), ()> {
    if !name.is_ascii() {
        return Err(());
    }
    let labels: Vec<&str> = name.split('.').collect();
    let (last, rest) = labels.split_last().ok_or(())?;
    if rest.iter().any(|l| l.is_empty() || l.len() >= 64) || last.len() >= 64 {
        return Err(());
    }
    out.extend_from_slice(name.as_bytes());
    Ok(())
}
