//! Byte spans in a source text and their translation to 1-based line and column.

/// A half-open byte range `[start, end)` in one source text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Span {
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

impl Span {
    /// A span from `start` to `end`; offsets beyond `u32::MAX` saturate.
    pub fn new(start: usize, end: usize) -> Self {
        Span {
            start: u32::try_from(start).unwrap_or(u32::MAX),
            end: u32::try_from(end).unwrap_or(u32::MAX),
        }
    }

    /// `start` as a `usize`.
    pub fn start(self) -> usize {
        self.start as usize
    }

    /// `end` as a `usize`.
    pub fn end(self) -> usize {
        self.end as usize
    }
}

/// Line starts of one text, to turn byte offsets into line and column.
#[derive(Debug, Clone)]
pub struct LineIndex {
    line_starts: Vec<usize>,
}

impl LineIndex {
    /// Indexes the line starts of `text` (`\n` ends a line; `\r\n` too).
    pub fn new(text: &[u8]) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(
            text.iter()
                .enumerate()
                .filter(|(_, b)| **b == b'\n')
                .map(|(i, _)| i + 1),
        );
        LineIndex { line_starts }
    }

    /// 1-based line and column of `offset`. The column counts characters, not bytes,
    /// so that it matches what an editor shows.
    pub fn line_col(&self, text: &[u8], offset: usize) -> (usize, usize) {
        let offset = offset.min(text.len());
        let line = self.line_starts.partition_point(|&s| s <= offset).max(1);
        let start = self.line_starts.get(line - 1).copied().unwrap_or(0);
        let prefix = text.get(start..offset).unwrap_or_default();
        let column = String::from_utf8_lossy(prefix).chars().count() + 1;
        (line, column)
    }
}
