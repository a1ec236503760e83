//! Writing the declaration back to `io.toml` as its `[web]` table, with toml_edit
//! so every comment, every other table and their order stay as the operator left
//! them. The file is replaced atomically (`machine::file::write_new`: a new file in the
//! same directory renamed into place; a symbolic link there is refused, not followed).

use std::path::Path;

use toml_edit::{Array, DocumentMut, Item, Table, Value, value};

use crate::core::error::{Error, Result};
use crate::core::web::WebAccess;

/// Replace (or add) the top-level `[web]` table of the file at `path`, creating the
/// file when it does not exist.
pub fn write_web(path: &Path, web: &WebAccess) -> Result<()> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(Error::io(path, e)),
    };
    let updated = with_web(&text, web)
        .map_err(|e| Error::config(format!("{}: cannot be edited: {e}", path.display())))?;
    // A new file beside it renamed into place (never written through a link).
    crate::machine::file::write_new(path, updated.as_bytes()).map_err(|e| Error::io(path, e))
}

/// The text with its `[web]` table set to `web`; everything else untouched.
pub fn with_web(text: &str, web: &WebAccess) -> std::result::Result<String, toml_edit::TomlError> {
    let mut doc: DocumentMut = text.parse()?;
    if !doc.contains_table("web") {
        doc.insert("web", Item::Table(Table::new()));
    }
    if let Some(table) = doc.get_mut("web").and_then(Item::as_table_mut) {
        set(table, "search", Value::from(web.search));
        set(table, "fetch", Value::from(web.fetch));
        match web.max_uses {
            Some(n) => set(table, "max_uses", Value::from(i64::from(n))),
            None => {
                table.remove("max_uses");
            }
        }
        // Under `from_policy` the lists are the policy's projection: writing them
        // back would state them twice (an error on the next read).
        if table.get("from_policy").and_then(Item::as_bool) == Some(true) {
            table.remove("allowed_domains");
            table.remove("blocked_domains");
        } else {
            set(
                table,
                "allowed_domains",
                Value::Array(array(&web.allowed_domains)),
            );
            set(
                table,
                "blocked_domains",
                Value::Array(array(&web.blocked_domains)),
            );
        }
    }
    Ok(doc.to_string())
}

/// Set a key's value keeping what surrounds it: the comment after it on its
/// line, and the spacing before it.
fn set(table: &mut Table, key: &str, new: Value) {
    match table.get_mut(key).and_then(Item::as_value_mut) {
        Some(old) => {
            let decor = old.decor().clone();
            *old = new;
            *old.decor_mut() = decor;
        }
        None => {
            table.insert(key, value(new));
        }
    }
}

fn array(items: &[String]) -> Array {
    items.iter().map(String::as_str).collect()
}
