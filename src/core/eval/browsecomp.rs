//! BrowseComp's cells as published: `problem` and `answer` are standard base64
//! of the plaintext's UTF-8 bytes XORed with a key stream — the SHA-256 digest
//! of the row's `canary` cell (its UTF-8 bytes), repeated whole as often as it
//! fits and then its first bytes, to the text's length. The same XOR encrypts
//! and decrypts (`xor`); `decrypt` reads a cell, `encrypt` writes one (for test
//! files and benchmarks: the published file is read, never written). Pure:
//! bytes in, bytes out. The plaintext is the set's, which its authors ask not
//! to be published: it is held in memory and in the store, never in a report.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

/// The SHA-256 digest of `bytes`.
pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    let d = ring::digest::digest(&ring::digest::SHA256, bytes);
    let mut out = [0u8; 32];
    out.copy_from_slice(d.as_ref());
    out
}

/// `bytes` as lower-case hexadecimal.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `data` XORed with the key stream of `canary` (see the module).
pub fn xor(data: &[u8], canary: &str) -> Vec<u8> {
    let key = sha256(canary.as_bytes());
    data.iter()
        .zip(key.iter().cycle())
        .map(|(d, k)| d ^ k)
        .collect()
}

/// A published cell's plaintext; why not (not base64, or not UTF-8 once
/// decrypted: the wrong canary).
pub fn decrypt(cell: &str, canary: &str) -> Result<String, String> {
    let bytes = STANDARD
        .decode(cell.trim())
        .map_err(|e| format!("not base64 ({e})"))?;
    String::from_utf8(xor(&bytes, canary))
        .map_err(|_| "does not decrypt to UTF-8 text with the row's canary".to_string())
}

/// `plain` as a published cell under `canary`.
pub fn encrypt(plain: &str, canary: &str) -> String {
    STANDARD.encode(xor(plain.as_bytes(), canary))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The invented sample's canary (tests/fixtures/eval-sets/README.md).
    const CANARY: &str =
        "SAMPLE DATA NOT FROM BROWSECOMP. canary GUID sample:0f1e2d3c-4b5a-6978-8695-a4b3c2d1e0f9";

    #[test]
    fn a_published_cell_decrypts_with_its_rows_canary() {
        // Made by the research notes' generator with the published algorithm,
        // checked there against a literal copy of simple-evals' functions.
        assert_eq!(
            decrypt("ajjLgq5m6ZDmtbKe", CANARY).as_deref(),
            Ok("Lamp at Dusk")
        );
        assert_eq!(
            decrypt("dJoPgftqXhmCr6fVp+f6VHgCQp4wcD2i2jI=", CANARY).as_deref(),
            Ok("Résumé of Sample Widgets")
        );
        // Longer than one digest: the key repeats.
        let long = "x".repeat(70);
        assert_eq!(decrypt(&encrypt(&long, CANARY), CANARY), Ok(long));
        assert!(decrypt("%%%", CANARY).unwrap_err().contains("not base64"));
        assert!(
            decrypt("dJoPgftqXhmCr6fVp+f6VHgCQp4wcD2i2jI=", "another canary")
                .unwrap_err()
                .contains("canary")
        );
        assert_eq!(
            hex(&sha256(b"abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
