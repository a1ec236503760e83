//! Where a store is: a SQLite file's path, or a PostgreSQL URL
//! (`postgres://` or `postgresql://`), and a location as it may be shown — in
//! `config`, an error, a log line, the store itself — which is never with its
//! password. Pure: string work only.

/// Whether `location` names a PostgreSQL store rather than a SQLite file.
pub fn is_url(location: &str) -> bool {
    location.starts_with("postgres://") || location.starts_with("postgresql://")
}

/// `location` as it may be shown: a URL's password (in its user part or a
/// `password=` parameter) left out; a path as it is.
pub fn shown(location: &str) -> String {
    if !is_url(location) {
        return location.to_string();
    }
    let (scheme, rest) = location.split_once("://").unwrap_or(("postgres", location));
    let (authority, tail) = match rest.find(['/', '?']) {
        Some(at) => rest.split_at(at),
        None => (rest, ""),
    };
    let authority = match authority.rsplit_once('@') {
        Some((user, host)) => {
            let user = user.split_once(':').map_or(user, |(u, _)| u);
            format!("{user}@{host}")
        }
        None => authority.to_string(),
    };
    let tail = match tail.split_once('?') {
        Some((path, query)) => {
            let kept: Vec<&str> = query
                .split('&')
                .filter(|kv| !kv.starts_with("password="))
                .collect();
            if kept.is_empty() {
                path.to_string()
            } else {
                format!("{path}?{}", kept.join("&"))
            }
        }
        None => tail.to_string(),
    };
    format!("{scheme}://{authority}{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_password_is_never_shown() {
        for (given, want) in [
            (
                "postgres://ann:s3cr%40t@db:5432/team",
                "postgres://ann@db:5432/team",
            ),
            (
                "postgresql://ann:x@y@db/team?sslmode=prefer",
                "postgresql://ann@db/team?sslmode=prefer",
            ),
            (
                "postgres://db/team?password=x&user=ann",
                "postgres://db/team?user=ann",
            ),
            ("postgres://db/team?password=x", "postgres://db/team"),
            ("postgres://ann@db", "postgres://ann@db"),
            ("postgres://", "postgres://"),
            ("data/runs.db", "data/runs.db"),
        ] {
            assert_eq!(shown(given), want, "{given}");
        }
    }
}
