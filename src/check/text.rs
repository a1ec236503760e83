//! The text of an HTML page, read by the HTML standard's tokenizer (html5ever)
//! without building a tree: linear in the page's size whatever its nesting — a
//! tree builder's scope checks make `<div>` nested 80,000 deep quadratic —
//! character references decoded, scripts, styles, `noscript`, `iframe` and
//! `template` contents left out, a space at every tag. At most `cap` bytes of
//! text are kept. Pure: text in, text out.

use std::cell::RefCell;

use html5ever::TokenizerResult;
use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    BufferQueue, Tag, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};

/// What a reader sees of `html`, at most `cap` bytes of it.
pub(super) fn html_text(html: &str, cap: usize) -> String {
    let sink = Sink {
        state: RefCell::new(State {
            cap,
            ..State::default()
        }),
    };
    let tokenizer = Tokenizer::new(sink, TokenizerOpts::default());
    let input = BufferQueue::default();
    input.push_back(StrTendril::from_slice(html));
    // Our sink never pauses the tokenizer for a script, so one feed reads it all.
    while !matches!(tokenizer.feed(&input), TokenizerResult::Done) {}
    tokenizer.end();
    tokenizer.sink.state.into_inner().out
}

struct Sink {
    state: RefCell<State>,
}

#[derive(Default)]
struct State {
    out: String,
    cap: usize,
    /// Inside an element whose content is raw text: its name, and whether a
    /// reader sees that text (a title does, a script does not).
    raw: Option<(String, bool)>,
    /// Open `<template>`s: their content is not shown.
    template: usize,
}

impl TokenSink for Sink {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        let mut state = self.state.borrow_mut();
        match token {
            Token::TagToken(tag) => return state.tag(&tag),
            Token::CharacterTokens(text) => state.text(&text),
            Token::CommentToken(_) => state.text(" "),
            _ => {}
        }
        TokenSinkResult::Continue
    }
}

impl State {
    fn tag(&mut self, tag: &Tag) -> TokenSinkResult<()> {
        self.text(" ");
        let name: &str = &tag.name;
        if tag.kind == TagKind::EndTag {
            if self.raw.as_ref().is_some_and(|(raw, _)| raw == name) {
                self.raw = None;
            }
            if name == "template" {
                self.template = self.template.saturating_sub(1);
            }
            return TokenSinkResult::Continue;
        }
        let (kind, shown) = match name {
            "template" => {
                self.template += 1;
                return TokenSinkResult::Continue;
            }
            "plaintext" => return TokenSinkResult::Plaintext,
            "script" => (RawKind::ScriptData, false),
            "style" | "noscript" | "iframe" | "noembed" | "noframes" => (RawKind::Rawtext, false),
            "xmp" => (RawKind::Rawtext, true),
            "title" | "textarea" => (RawKind::Rcdata, true),
            _ => return TokenSinkResult::Continue,
        };
        self.raw = Some((name.to_string(), shown));
        TokenSinkResult::RawData(kind)
    }

    fn text(&mut self, text: &str) {
        let hidden = self.template > 0 || self.raw.as_ref().is_some_and(|(_, shown)| !shown);
        if hidden || self.out.len() >= self.cap {
            return;
        }
        let room = self.cap - self.out.len();
        let mut end = text.len().min(room);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        self.out.push_str(&text[..end]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(html: &str) -> String {
        html_text(html, 1 << 20)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn what_a_reader_sees() {
        assert_eq!(
            words(
                "<html><head><title>T</title><script>var q = '</p>not this';</script>\
                 <style>p { x: 'nor this' }</style></head><body><p>Release\n  <b>0.22.0</b> \
                 is&nbsp;out &amp; caf&eacute;</p><noscript>no</noscript>\
                 <template><p>hidden</p></template><!-- c --><p>end</p></body></html>"
            ),
            "T Release 0.22.0 is out & café end"
        );
        assert_eq!(words("plain words, no tags"), "plain words, no tags");
    }

    #[test]
    fn deep_nesting_is_linear_and_the_text_is_capped() {
        let page = "<div>x".repeat(80_000) + "<p>the end</p>";
        assert!(words(&page).ends_with("x x the end"));
        assert_eq!(html_text("<p>abcdef</p>", 4).trim(), "abc");
        assert_eq!(html_text("<p>é</p>", 2).trim(), "");
    }
}
