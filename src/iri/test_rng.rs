//! A deterministic xorshift generator for the tests of every layer (built only for tests):
//! the same seed gives the same inputs on every machine.

/// A xorshift64 generator; its state is never 0.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    /// The next number.
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// `len` bytes, mostly from `alphabet`, sometimes any byte at all.
    pub(crate) fn bytes(&mut self, len: usize, alphabet: &[u8]) -> Vec<u8> {
        self.bytes_from(len, alphabet, true)
    }

    /// `len` bytes from `alphabet`, and with `wild` sometimes any byte at all.
    pub(crate) fn bytes_from(&mut self, len: usize, alphabet: &[u8], wild: bool) -> Vec<u8> {
        (0..len)
            .map(|_| {
                let r = self.next();
                if wild && r % 13 == 0 {
                    (r >> 8) as u8
                } else {
                    alphabet[(r >> 8) as usize % alphabet.len()]
                }
            })
            .collect()
    }
}
