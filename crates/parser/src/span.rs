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

/// Bytes between two saved character counts: a column costs at most twice this much scanning,
/// however long the line (minified JSON is one line).
const CHECKPOINT: usize = 256;

/// Line starts of one text, to turn byte offsets into line and column.
#[derive(Debug, Clone)]
pub struct LineIndex {
    line_starts: Vec<usize>,
    /// The number of characters before each multiple of `CHECKPOINT`.
    checkpoints: Vec<usize>,
}

/// Characters in `bytes`: every byte that does not continue a UTF-8 sequence starts one.
fn count_chars(bytes: &[u8]) -> usize {
    // Most schemas are ASCII, which the standard library checks a word at a time.
    if bytes.is_ascii() {
        bytes.len()
    } else {
        bytes.iter().filter(|b| (**b & 0xC0) != 0x80).count()
    }
}

impl LineIndex {
    /// Indexes the line starts of `text` (`\n` ends a line; `\r\n` too).
    pub fn new(text: &[u8]) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(memchr::memchr_iter(b'\n', text).map(|i| i + 1));
        let mut checkpoints = Vec::with_capacity(text.len() / CHECKPOINT + 1);
        let mut chars = 0;
        for chunk in text.chunks(CHECKPOINT) {
            checkpoints.push(chars);
            chars += count_chars(chunk);
        }
        checkpoints.push(chars);
        LineIndex {
            line_starts,
            checkpoints,
        }
    }

    /// Characters before byte `offset`.
    fn chars_before(&self, text: &[u8], offset: usize) -> usize {
        let block = offset / CHECKPOINT;
        let saved = self.checkpoints.get(block).copied().unwrap_or(0);
        saved + count_chars(text.get(block * CHECKPOINT..offset).unwrap_or_default())
    }

    /// 1-based line and column of `offset`. The column counts characters, not bytes,
    /// so that it matches what an editor shows.
    pub fn line_col(&self, text: &[u8], offset: usize) -> (usize, usize) {
        let offset = offset.min(text.len());
        let line = self.line_starts.partition_point(|&s| s <= offset).max(1);
        let start = self.line_starts.get(line - 1).copied().unwrap_or(0);
        let column = if offset - start <= CHECKPOINT {
            count_chars(text.get(start..offset).unwrap_or_default()) + 1
        } else {
            self.chars_before(text, offset) - self.chars_before(text, start) + 1
        };
        (line, column)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_characters_on_long_lines() {
        let mut text = "é".repeat(3000).into_bytes();
        text.extend_from_slice(b"\nab\xc3\xa9x");
        let index = LineIndex::new(&text);
        assert_eq!(index.line_col(&text, 0), (1, 1));
        assert_eq!(index.line_col(&text, 2 * 2500), (1, 2501));
        let second = 2 * 3000 + 1;
        assert_eq!(index.line_col(&text, second), (2, 1));
        assert_eq!(index.line_col(&text, second + 4), (2, 4));
    }
}
