//! A page's bytes decoded by the charset it declares, as a browser would pick
//! it: a byte order mark, else the Content-Type header's `charset`, else (for
//! HTML) a `<meta charset>` or `<meta http-equiv="Content-Type">` in its first
//! 1024 bytes, else UTF-8; decoded by encoding_rs (the WHATWG Encoding
//! standard's labels and decoders, bad bytes replaced). Pure: bytes in, text out.

use std::borrow::Cow;

use encoding_rs::{Encoding, UTF_8};

/// How far into a page a `<meta>` charset is looked for (the standard's prescan).
const PRESCAN: usize = 1024;

/// The encoding `bytes` declare, served as `content_type` (lowercase).
pub(super) fn encoding_of(
    bytes: &[u8],
    content_type: Option<&str>,
    html: bool,
) -> &'static Encoding {
    if let Some((bom, _)) = Encoding::for_bom(bytes) {
        return bom;
    }
    let header = content_type.and_then(header_charset);
    let declared = match &header {
        Some(label) => Encoding::for_label(label.as_bytes()),
        None if html => meta_charset(bytes).and_then(|l| Encoding::for_label(l.as_bytes())),
        None => None,
    };
    match declared {
        // A page that could say so in ASCII is not UTF-16 (the standard's rule).
        Some(e) if header.is_none() && !e.is_ascii_compatible() => UTF_8,
        Some(e) => e,
        None => UTF_8,
    }
}

/// `bytes` as text in `encoding` (a byte order mark removed).
pub(super) fn decode<'a>(bytes: &'a [u8], encoding: &'static Encoding) -> Cow<'a, str> {
    encoding.decode(bytes).0
}

/// The `charset` parameter of a Content-Type value.
fn header_charset(content_type: &str) -> Option<String> {
    content_type.split(';').skip(1).find_map(|param| {
        let (name, value) = param.split_once('=')?;
        (name.trim().eq_ignore_ascii_case("charset"))
            .then(|| value.trim().trim_matches(['"', '\'']).trim().to_string())
            .filter(|v| !v.is_empty())
    })
}

/// The charset a `<meta>` tag in the page's first bytes names, in either form.
fn meta_charset(bytes: &[u8]) -> Option<String> {
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(PRESCAN)]).to_ascii_lowercase();
    let mut rest = head.as_str();
    while let Some(at) = rest.find("<meta") {
        let tag = &rest[at..];
        let tag = &tag[..tag.find('>').unwrap_or(tag.len())];
        if let Some(label) = charset_in(tag) {
            return Some(label);
        }
        rest = &rest[at + 5..];
    }
    None
}

/// The value after `charset` (then `=`) in a tag: `charset="x"` or
/// `content="text/html; charset=x"`.
fn charset_in(tag: &str) -> Option<String> {
    let after = &tag[tag.find("charset")? + "charset".len()..];
    let value = after.trim_start().strip_prefix('=')?.trim_start();
    let value = value.trim_start_matches(['"', '\'']);
    let end = value
        .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | ';' | '/' | '>'))
        .unwrap_or(value.len());
    Some(value[..end].to_string()).filter(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_declared_charset_wins_in_the_standard_order() {
        let name = |b: &[u8], t: Option<&str>| encoding_of(b, t, true).name();
        assert_eq!(name(b"<p>x", None), "UTF-8");
        assert_eq!(
            name(b"<p>x", Some("text/html; charset=ISO-8859-1")),
            "windows-1252"
        );
        assert_eq!(
            name(b"<p>x", Some("text/html;charset=\"shift_jis\"")),
            "Shift_JIS"
        );
        assert_eq!(
            name(b"<meta charset='euc-jp'>", Some("text/html")),
            "EUC-JP"
        );
        assert_eq!(
            name(
                b"<META HTTP-EQUIV=\"Content-Type\" CONTENT=\"text/html; charset=KOI8-R\">",
                None
            ),
            "KOI8-R"
        );
        // The header outranks the page; a byte order mark outranks both.
        assert_eq!(
            name(b"<meta charset=euc-jp>", Some("text/html; charset=utf-8")),
            "UTF-8"
        );
        assert_eq!(
            name(
                b"\xef\xbb\xbf<meta charset=euc-jp>",
                Some("text/html; charset=latin1")
            ),
            "UTF-8"
        );
        // A meta that says UTF-16 is read as UTF-8; an unknown label is UTF-8.
        assert_eq!(name(b"<meta charset=utf-16le>", None), "UTF-8");
        assert_eq!(name(b"<meta charset=klingon>", None), "UTF-8");
        // Past the first 1024 bytes, or outside a meta tag, it is not looked for.
        let late = [b"x".repeat(1100), b"<meta charset=euc-jp>".to_vec()].concat();
        assert_eq!(name(&late, None), "UTF-8");
        assert_eq!(name(b"<p>charset=euc-jp</p>", None), "UTF-8");
        // Plain text takes the header only.
        assert_eq!(
            encoding_of(b"<meta charset=euc-jp>", Some("text/plain"), false).name(),
            "UTF-8"
        );
    }

    #[test]
    fn bytes_are_decoded_by_it() {
        let sjis = [0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea];
        assert_eq!(decode(&sjis, encoding_rs::SHIFT_JIS), "日本語");
        assert_eq!(decode(b"caf\xe9", encoding_rs::WINDOWS_1252), "café");
    }
}
