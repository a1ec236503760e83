//! The few Python literals the published sets write into a CSV cell: SimpleQA's
//! `metadata` (the `str()` of a dict: `{'topic': 'Art', 'urls': ['…']}`) and
//! FRAMES' `wiki_links` (the `str()` of a list). Python's `repr` rules, not
//! JSON's: a string is in single quotes, or double quotes when it holds a
//! single quote, with backslash escapes (`\'`, `\\`, `\n`, `\xNN`, `\uNNNN`,
//! `\UNNNNNNNN`). Numbers, `True`, `False` and `None` are read as words (the
//! sets' loaders use none of them). Pure: text in, values out, in time linear
//! in the text; nesting is at most a list in a dict.

use std::collections::BTreeMap;

/// One literal read.
#[derive(Debug, Clone, PartialEq)]
pub enum Literal {
    /// A string.
    Str(String),
    /// A list.
    List(Vec<Literal>),
    /// A dict, its keys strings.
    Dict(BTreeMap<String, Literal>),
    /// A number, `True`, `False` or `None`, as written.
    Word(String),
}

impl Literal {
    /// The strings of a list (a string alone is a list of one); `None` for a
    /// dict, or a list holding something else.
    pub fn strings(&self) -> Option<Vec<String>> {
        match self {
            Literal::Str(s) => Some(vec![s.clone()]),
            Literal::List(items) => items
                .iter()
                .map(|i| match i {
                    Literal::Str(s) => Some(s.clone()),
                    _ => None,
                })
                .collect(),
            _ => None,
        }
    }
}

/// The deepest nesting read (a list in a dict is 2).
const MAX_DEPTH: usize = 4;

/// The literal `text` is, all of it; why not otherwise (where, and what was
/// expected).
pub fn parse(text: &str) -> Result<Literal, String> {
    let mut p = Parser {
        chars: text.char_indices().peekable(),
        text,
    };
    let value = p.value(0)?;
    p.space();
    match p.chars.next() {
        None => Ok(value),
        Some((at, c)) => Err(format!("{c:?} after the literal, at character {at}")),
    }
}

struct Parser<'a> {
    chars: std::iter::Peekable<std::str::CharIndices<'a>>,
    text: &'a str,
}

impl Parser<'_> {
    fn space(&mut self) {
        while self.chars.next_if(|(_, c)| c.is_whitespace()).is_some() {}
    }

    fn at(&mut self) -> usize {
        self.chars.peek().map_or(self.text.len(), |(i, _)| *i)
    }

    fn value(&mut self, depth: usize) -> Result<Literal, String> {
        if depth > MAX_DEPTH {
            return Err(format!("nested deeper than {MAX_DEPTH}"));
        }
        self.space();
        let at = self.at();
        match self.chars.peek().map(|(_, c)| *c) {
            Some('\'' | '"') => self.string().map(Literal::Str),
            Some('[') => {
                self.chars.next();
                self.items(']', depth).map(Literal::List)
            }
            Some('{') => {
                self.chars.next();
                self.dict(depth).map(Literal::Dict)
            }
            Some(c) if c.is_alphanumeric() || c == '-' || c == '.' => {
                let mut word = String::new();
                while let Some((_, c)) = self
                    .chars
                    .next_if(|(_, c)| c.is_alphanumeric() || matches!(c, '-' | '.' | '+' | '_'))
                {
                    word.push(c);
                }
                Ok(Literal::Word(word))
            }
            Some(c) => Err(format!("{c:?} at character {at}: expected a value")),
            None => Err("the text ends where a value was expected".into()),
        }
    }

    /// Values up to `close` (the opening bracket read), a trailing comma allowed.
    fn items(&mut self, close: char, depth: usize) -> Result<Vec<Literal>, String> {
        let mut out = Vec::new();
        loop {
            self.space();
            if self.chars.next_if(|(_, c)| *c == close).is_some() {
                return Ok(out);
            }
            out.push(self.value(depth + 1)?);
            self.space();
            let at = self.at();
            match self.chars.next() {
                Some((_, ',')) => {}
                Some((_, c)) if c == close => return Ok(out),
                Some((_, c)) => {
                    return Err(format!("{c:?} at character {at}: expected , or {close}"));
                }
                None => return Err(format!("the text ends before its closing {close}")),
            }
        }
    }

    fn dict(&mut self, depth: usize) -> Result<BTreeMap<String, Literal>, String> {
        let mut out = BTreeMap::new();
        loop {
            self.space();
            if self.chars.next_if(|(_, c)| *c == '}').is_some() {
                return Ok(out);
            }
            let at = self.at();
            let Literal::Str(key) = self.value(depth + 1)? else {
                return Err(format!("a key at character {at} is not a string"));
            };
            self.space();
            let at = self.at();
            if self.chars.next_if(|(_, c)| *c == ':').is_none() {
                return Err(format!(
                    "expected : after the key {key:?}, at character {at}"
                ));
            }
            let value = self.value(depth + 1)?;
            out.insert(key, value);
            self.space();
            let at = self.at();
            match self.chars.next() {
                Some((_, ',')) => {}
                Some((_, '}')) => return Ok(out),
                Some((_, c)) => return Err(format!("{c:?} at character {at}: expected , or }}")),
                None => return Err("the text ends before its closing }".into()),
            }
        }
    }

    fn string(&mut self) -> Result<String, String> {
        let Some((start, quote)) = self.chars.next() else {
            return Err("expected a string".into());
        };
        let mut out = String::new();
        loop {
            match self.chars.next() {
                None => {
                    return Err(format!(
                        "the string opened at character {start} is not closed"
                    ));
                }
                Some((_, c)) if c == quote => return Ok(out),
                Some((at, '\\')) => out.push(self.escape(at)?),
                Some((_, c)) => out.push(c),
            }
        }
    }

    fn escape(&mut self, at: usize) -> Result<char, String> {
        let hex = |p: &mut Self, n: usize| -> Result<char, String> {
            let digits: String = (0..n)
                .filter_map(|_| p.chars.next().map(|(_, c)| c))
                .collect();
            u32::from_str_radix(&digits, 16)
                .ok()
                .filter(|_| digits.len() == n)
                .and_then(char::from_u32)
                .ok_or_else(|| format!("a bad escape \\{digits} at character {at}"))
        };
        match self.chars.next().map(|(_, c)| c) {
            Some('n') => Ok('\n'),
            Some('t') => Ok('\t'),
            Some('r') => Ok('\r'),
            Some('0') => Ok('\0'),
            Some('x') => hex(self, 2),
            Some('u') => hex(self, 4),
            Some('U') => hex(self, 8),
            Some(c @ ('\\' | '\'' | '"')) => Ok(c),
            Some(c) => Err(format!("an unknown escape \\{c} at character {at}")),
            None => Err("the text ends inside an escape".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &str) -> Literal {
        Literal::Str(v.into())
    }

    #[test]
    fn a_python_dict_literal_is_read_as_python_writes_it() {
        let text = r#"{'topic': 'Music', 'answer_type': 'Date', 'urls': ["https://e.org/Nobody's_Album", 'https://e.net/x\'y', 'caf\xe9 \u00e9\\']}"#;
        let Ok(Literal::Dict(d)) = parse(text) else {
            panic!("{:?}", parse(text));
        };
        assert_eq!(d.get("topic"), Some(&s("Music")));
        assert_eq!(
            d.get("urls").and_then(Literal::strings),
            Some(vec![
                "https://e.org/Nobody's_Album".to_string(),
                "https://e.net/x'y".to_string(),
                "café é\\".to_string(),
            ])
        );
        assert_eq!(
            parse("['a', 'b',]"),
            Ok(Literal::List(vec![s("a"), s("b")]))
        );
        assert_eq!(parse(" [] "), Ok(Literal::List(vec![])));
        assert_eq!(
            parse("{'n': 3, 'ok': True, 'x': None}").map(|l| matches!(l, Literal::Dict(_))),
            Ok(true)
        );
    }

    #[test]
    fn what_is_not_a_literal_is_refused_saying_where() {
        for (text, says) in [
            ("{'a': 'b'", "closing }"),
            ("['a' 'b']", "expected , or ]"),
            ("{'a' 'b'}", "expected : after the key"),
            ("{1: 'b'}", "is not a string"),
            ("'open", "not closed"),
            ("'\\q'", "unknown escape"),
            ("'\\x4'", "bad escape"),
            ("['a'] x", "after the literal"),
            ("", "ends where a value"),
            ("[[[[[['deep']]]]]]", "nested deeper"),
        ] {
            let e = parse(text).expect_err(text);
            assert!(e.contains(says), "{text}: {e}");
        }
    }
}
