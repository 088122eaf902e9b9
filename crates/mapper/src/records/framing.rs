//! Step 1: the record's bytes as the channel's record format reads them. A `json` channel takes
//! the bytes as they are; a `gsr-json` channel strips the Glue Schema Registry header (version 3,
//! compression 0 or 5 (zlib), a 16-byte schema version id) and inflates the payload.

use std::borrow::Cow;
use std::io::Read;

use super::{Failure, Reason, RecordFormat};

/// `HEADER_VERSION_BYTE` of the GSR serializer.
const HEADER_VERSION: u8 = 3;
/// `COMPRESSION_DEFAULT_BYTE`: no compression.
const COMPRESSION_NONE: u8 = 0;
/// `COMPRESSION_BYTE`: zlib.
const COMPRESSION_ZLIB: u8 = 5;
/// Version byte, compression byte, then the 16 bytes of the schema version id.
const HEADER_LEN: usize = 18;

/// Most bytes that a zlib payload may inflate to. A record is at most a few megabytes on any
/// stream; the limit keeps a crafted payload (a "zip bomb") from taking all memory.
pub const MAX_INFLATED: u64 = 64 * 1024 * 1024;

/// The JSON text of a record, or why the channel cannot read one from it.
pub(crate) fn unframe<'a>(
    bytes: &'a [u8],
    format: RecordFormat,
    expected_version: Option<[u8; 16]>,
) -> Result<Cow<'a, [u8]>, Failure> {
    match format {
        RecordFormat::Json => {
            if bytes.first() == Some(&HEADER_VERSION) {
                return Err(Failure::whole(
                    Reason::GsrFramed,
                    "the record starts with the byte 0x03 of a GSR header, but the channel reads plain JSON".to_string(),
                ));
            }
            Ok(Cow::Borrowed(bytes))
        }
        RecordFormat::GsrJson => gsr_payload(bytes, expected_version),
    }
}

fn gsr_payload(bytes: &[u8], expected_version: Option<[u8; 16]>) -> Result<Cow<'_, [u8]>, Failure> {
    let Some(&version) = bytes.first() else {
        return Err(Failure::whole(
            Reason::GsrNotFramed,
            "the record is empty, but the channel reads GSR records, which start with an 18-byte header".to_string(),
        ));
    };
    if version != HEADER_VERSION {
        if looks_like_json(version) {
            return Err(Failure::whole(
                Reason::GsrNotFramed,
                "the record is plain JSON, but the channel reads GSR records, which start with an 18-byte header".to_string(),
            ));
        }
        return Err(Failure::whole(
            Reason::GsrHeader,
            format!(
                "the GSR header version is {version}, but the serializer writes {HEADER_VERSION}"
            ),
        ));
    }
    let (Some(&compression), Some(id), Some(payload)) = (
        bytes.get(1),
        bytes.get(2..HEADER_LEN),
        bytes.get(HEADER_LEN..),
    ) else {
        return Err(Failure::whole(
            Reason::GsrHeader,
            format!(
                "the record has {} bytes, fewer than the 18 of a GSR header",
                bytes.len()
            ),
        ));
    };
    if let Some(expected) = expected_version {
        if id != expected {
            return Err(Failure::whole(
                Reason::GsrSchemaVersion,
                format!(
                    "the record names schema version {}, but the channel resolves {}",
                    format_uuid(id),
                    format_uuid(&expected)
                ),
            ));
        }
    }
    match compression {
        COMPRESSION_NONE => Ok(Cow::Borrowed(payload)),
        COMPRESSION_ZLIB => inflate(payload).map(Cow::Owned),
        other => Err(Failure::whole(
            Reason::GsrHeader,
            format!(
                "the GSR compression byte is {other}; the serializer writes 0 (none) or 5 (zlib)"
            ),
        )),
    }
}

/// Whether a first byte can start a JSON text: the channel's GSR deserializer sees "not ours"
/// either way, but for the producer "you sent plain JSON" is the useful message.
fn looks_like_json(first: u8) -> bool {
    matches!(
        first,
        b'{' | b'[' | b'"' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n' | b' ' | b'\t' | b'\r' | b'\n'
    )
}

fn inflate(payload: &[u8]) -> Result<Vec<u8>, Failure> {
    let mut out = Vec::new();
    let mut decoder = flate2::read::ZlibDecoder::new(payload).take(MAX_INFLATED + 1);
    match decoder.read_to_end(&mut out) {
        Ok(_) if out.len() as u64 > MAX_INFLATED => Err(Failure::whole(
            Reason::GsrHeader,
            format!("the zlib payload inflates to more than {MAX_INFLATED} bytes"),
        )),
        Ok(_) => Ok(out),
        Err(error) => Err(Failure::whole(
            Reason::GsrHeader,
            format!("the GSR header says zlib (5), but the payload does not inflate: {error}"),
        )),
    }
}

/// Parses `--schema-version-id`: a UUID in its usual 8-4-4-4-12 hex form.
pub fn parse_uuid(text: &str) -> Option<[u8; 16]> {
    super::values::uuid_bytes(text)
}

/// A UUID's 16 bytes in the usual lowercase 8-4-4-4-12 form.
pub fn format_uuid(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(36);
    for (i, b) in bytes.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            out.push('-');
        }
        out.push_str(&format!("{b:02x}"));
    }
    out
}
