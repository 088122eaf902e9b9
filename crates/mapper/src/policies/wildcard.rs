//! The wildcard matching of IAM: `*` and `?` in actions (case-insensitive), in resource ARNs
//! (case-sensitive, within one colon-separated segment, except a `*` that ends the pattern) and
//! in `StringLike` values (case-sensitive, anywhere).

/// How `*` and `?` treat a colon.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Colons {
    /// Wildcards match colons like any other character (actions, `StringLike`).
    Free,
    /// Wildcards stay within a colon-separated segment, except a `*` at the very end of the
    /// pattern, which may match past colons (resource ARNs, `ArnLike`).
    Segments,
}

/// Whether `pattern` (with `*` and `?`) matches all of `text`.
pub(super) fn glob(pattern: &str, text: &str, ignore_case: bool, colons: Colons) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let same = |a: char, b: char| {
        if ignore_case {
            a.to_lowercase().eq(b.to_lowercase())
        } else {
            a == b
        }
    };
    // Iterative matching with one backtrack point per `*`: linear for the patterns IAM allows
    // in practice, and never recursive.
    let (mut pi, mut ti) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        let tc = t.get(ti).copied();
        match (p.get(pi).copied(), tc) {
            (Some('*'), _) => {
                star = Some((pi, ti));
                pi += 1;
            }
            (Some('?'), Some(c)) if colons == Colons::Free || c != ':' => {
                pi += 1;
                ti += 1;
            }
            (Some(pc), Some(c)) if pc != '*' && pc != '?' && same(pc, c) => {
                pi += 1;
                ti += 1;
            }
            _ => {
                let Some((sp, st)) = star else {
                    return false;
                };
                // The `*` at `sp` takes one more character, unless that character is a colon
                // and the star may not cross colons.
                let crossing = t.get(st) == Some(&':');
                let ends_pattern = sp + 1 == p.len();
                if crossing && colons == Colons::Segments && !ends_pattern {
                    return false;
                }
                star = Some((sp, st + 1));
                pi = sp + 1;
                ti = st + 1;
            }
        }
    }
    p.get(pi..)
        .is_some_and(|rest| rest.iter().all(|c| *c == '*'))
}

/// Whether a policy's action pattern (`s3tables:Get*`, `*`) matches the action
/// (case-insensitive).
pub(super) fn action_matches(pattern: &str, action: &str) -> bool {
    glob(pattern, action, true, Colons::Free)
}

/// Whether a policy's resource pattern matches a resource ARN: `*` matches everything; else
/// the service segment is compared as written (IAM allows no wildcard there) and the rest is
/// matched segment by segment, case-sensitively.
pub(super) fn arn_matches(pattern: &str, arn: &str) -> bool {
    if pattern == "*" {
        return true;
    }
    let service = |s: &str| s.split(':').nth(2).map(str::to_string);
    match (service(pattern), service(arn)) {
        (Some(p), Some(a)) if p.contains(['*', '?']) || p != a => return false,
        (Some(_), Some(_)) => {}
        // Not an ARN: matched as written (a `StringLike`-style comparison of the whole).
        _ => return glob(pattern, arn, false, Colons::Segments),
    }
    glob(pattern, arn, false, Colons::Segments)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_ignore_case_and_take_wildcards_anywhere() {
        assert!(action_matches("iam:ListAccessKeys", "IAM:listaccesskeys"));
        assert!(action_matches("iam:*AccessKey*", "iam:ListAccessKeys"));
        assert!(action_matches("s3tables:Get*", "s3tables:GetTableData"));
        assert!(action_matches("s3tables:?etTable", "s3tables:GetTable"));
        assert!(!action_matches("s3tables:?etTable", "s3tables:GetTables"));
        assert!(action_matches("*", "kms:Decrypt"));
        assert!(!action_matches("s3:*", "s3tables:GetTable"));
    }

    #[test]
    fn resources_are_case_sensitive_and_segmented() {
        let bucket = "arn:aws:s3tables:us-east-1:123456789012:bucket/b";
        assert!(arn_matches(bucket, bucket));
        assert!(!arn_matches(
            "arn:aws:s3tables:us-east-1:123456789012:bucket/B",
            bucket
        ));
        assert!(arn_matches(
            "arn:aws:s3tables:*:123456789012:bucket/*",
            bucket
        ));
        // A `*` inside a segment does not cross a colon.
        assert!(!arn_matches("arn:aws:s3tables:*:bucket/b", bucket));
        // One that ends the pattern does.
        assert!(arn_matches("arn:aws:s3tables:us-*", bucket));
        assert!(arn_matches(
            "arn:aws:logs:us-east-1:1:log-group:/g:*",
            "arn:aws:logs:us-east-1:1:log-group:/g:log-stream:s"
        ));
        // No wildcard in the service segment.
        assert!(!arn_matches(
            "arn:aws:s3*:us-east-1:123456789012:bucket/b",
            bucket
        ));
        assert!(arn_matches("*", bucket));
        assert!(arn_matches(
            "arn:aws:s3tables:us-east-?:123456789012:bucket/b",
            bucket
        ));
    }
}
