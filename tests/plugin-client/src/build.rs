//! New builds of a component, for tests and benchmarks of hot reload.

/// `bytes` with a custom section appended: the same code, but a different build to the host
/// (no runtime reads the section), so that a reload must load it anew.
pub fn rebuilt(bytes: &[u8], tag: &str) -> Vec<u8> {
    fn leb128(mut n: usize, out: &mut Vec<u8>) {
        loop {
            let byte = (n & 0x7f) as u8;
            n >>= 7;
            if n == 0 {
                out.push(byte);
                return;
            }
            out.push(byte | 0x80);
        }
    }
    let name = b"terrarium-test-build";
    let mut payload = Vec::new();
    leb128(name.len(), &mut payload);
    payload.extend_from_slice(name);
    payload.extend_from_slice(tag.as_bytes());
    let mut out = bytes.to_vec();
    out.push(0); // custom section id
    leb128(payload.len(), &mut out);
    out.extend_from_slice(&payload);
    out
}
