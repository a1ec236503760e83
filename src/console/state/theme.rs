//! Themes: TOML files naming roles (background, text, muted, accent, ok, error,
//! warning, selection, border, cache_write, cache_read) in named ANSI colours. The three shipped themes are embedded
//! so the binary works anywhere; `themes/NAME.toml` on disk is used when present.

use std::collections::BTreeMap;
use std::path::Path;

use ratatui::style::Color;

use crate::core::error::{Error, Result};

/// The roles a theme names.
pub const ROLES: [&str; 11] = [
    "background",
    "text",
    "muted",
    "accent",
    "ok",
    "error",
    "warning",
    "selection",
    "border",
    "cache_write",
    "cache_read",
];
/// The colour names a theme may use.
pub const COLOURS: [&str; 17] = [
    "default",
    "black",
    "red",
    "green",
    "yellow",
    "blue",
    "magenta",
    "cyan",
    "gray",
    "dark_gray",
    "light_red",
    "light_green",
    "light_yellow",
    "light_blue",
    "light_magenta",
    "light_cyan",
    "white",
];
/// The shipped themes, in cycling order.
pub const BUILT_IN: [(&str, &str); 3] = [
    ("dark", include_str!("../../../themes/dark.toml")),
    ("light", include_str!("../../../themes/light.toml")),
    (
        "high-contrast",
        include_str!("../../../themes/high-contrast.toml"),
    ),
];

/// Colours by role.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    /// Behind everything; `default` keeps the terminal's own.
    pub background: Color,
    /// Body text.
    pub text: Color,
    /// Secondary text.
    pub muted: Color,
    /// Titles, keys, focus.
    pub accent: Color,
    /// Success.
    pub ok: Color,
    /// Refusals and failures.
    pub error: Color,
    /// Cautions.
    pub warning: Color,
    /// Selected rows.
    pub selection: Color,
    /// Frames.
    pub border: Color,
    /// Cache writes in the cost chart (charged at the write price).
    pub cache_write: Color,
    /// Cache reads in the cost chart (charged at the read price).
    pub cache_read: Color,
}

impl Default for Theme {
    fn default() -> Self {
        Theme {
            background: Color::Reset,
            text: Color::White,
            muted: Color::DarkGray,
            accent: Color::Cyan,
            ok: Color::Green,
            error: Color::Red,
            warning: Color::Yellow,
            selection: Color::Blue,
            border: Color::Gray,
            cache_write: Color::Magenta,
            cache_read: Color::Green,
        }
    }
}

fn colour(name: &str) -> Option<Color> {
    Some(match name {
        "default" => Color::Reset,
        "black" => Color::Black,
        "red" => Color::Red,
        "green" => Color::Green,
        "yellow" => Color::Yellow,
        "blue" => Color::Blue,
        "magenta" => Color::Magenta,
        "cyan" => Color::Cyan,
        "gray" => Color::Gray,
        "dark_gray" => Color::DarkGray,
        "light_red" => Color::LightRed,
        "light_green" => Color::LightGreen,
        "light_yellow" => Color::LightYellow,
        "light_blue" => Color::LightBlue,
        "light_magenta" => Color::LightMagenta,
        "light_cyan" => Color::LightCyan,
        "white" => Color::White,
        _ => return None,
    })
}

impl Theme {
    /// Parse theme text; `origin` names it in errors. Missing roles fall back to
    /// the dark theme's, so an older file keeps working when roles are added.
    pub fn parse(text: &str, origin: &str) -> Result<Theme> {
        let table: BTreeMap<String, String> = toml::from_str(text)
            .map_err(|e| Error::config(format!("theme {origin}: {}", e.message())))?;
        let mut theme = Theme::default();
        for (role, name) in &table {
            let c = colour(name).ok_or_else(|| {
                Error::config(format!(
                    "theme {origin}: role `{role}` has unknown colour `{name}`; use one of: {}",
                    COLOURS.join(", ")
                ))
            })?;
            let slot = match role.as_str() {
                "background" => &mut theme.background,
                "text" => &mut theme.text,
                "muted" => &mut theme.muted,
                "accent" => &mut theme.accent,
                "ok" => &mut theme.ok,
                "error" => &mut theme.error,
                "warning" => &mut theme.warning,
                "selection" => &mut theme.selection,
                "border" => &mut theme.border,
                "cache_write" => &mut theme.cache_write,
                "cache_read" => &mut theme.cache_read,
                _ => {
                    return Err(Error::config(format!(
                        "theme {origin}: unknown role `{role}`; the roles are: {}",
                        ROLES.join(", ")
                    )));
                }
            };
            *slot = c;
        }
        Ok(theme)
    }

    /// `themes/NAME.toml` under `dir` when it exists, else the built-in of that name.
    pub fn load(name: &str, dir: &Path) -> Result<Theme> {
        let path = dir.join(format!("{name}.toml"));
        if path.is_file() {
            let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
            return Theme::parse(&text, &path.display().to_string());
        }
        let (_, text) = BUILT_IN.iter().find(|(n, _)| *n == name).ok_or_else(|| {
            Error::config(format!("unknown theme `{name}`: no {} and no built-in of that name (built in: dark, light, high-contrast)", path.display()))
        })?;
        Theme::parse(text, name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_ins_parse_and_errors_name_what_is_wrong() {
        for (name, text) in BUILT_IN {
            Theme::parse(text, name).unwrap();
        }
        let e = Theme::parse("txt = \"red\"\n", "t.toml")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "theme t.toml: unknown role `txt`; the roles are: background, text, muted, accent, ok, error, warning, selection, border, cache_write, cache_read"
        );
        let e = Theme::parse("text = \"purple\"\n", "t.toml")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with(
                "theme t.toml: role `text` has unknown colour `purple`; use one of: default, black, red"
            ),
            "{e}"
        );
        assert!(Theme::load("nope", Path::new("/nonexistent")).is_err());
    }
}
