//! What the parser's test files share.

pub mod oracle;
