//! [`RawJson`]: a JSON value msgflow carries without interpreting it.

use std::fmt;
use std::sync::Arc;

use serde::de::{self, DeserializeOwned, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::ser::SerializeStruct;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::value::RawValue;

/// A JSON value kept exactly as it was read (tool arguments, tool-return content, metadata,
/// provider details, ...).
///
/// Keeping opaque content as text is what makes msgflow both lossless and fast: integers of any
/// size, number spellings, key order and duplicate keys survive, and nothing is unescaped or
/// re-escaped. The only change made on reading is removing insignificant whitespace, so that
/// output is always in pydantic-ai's compact form.
///
/// A history parsed from an [`Input`](crate::Input) does not copy its opaque values at all: each
/// one is a slice of the input text, which stays allocated while any of them is alive. Cloning a
/// `RawJson` never copies its text either.
///
/// ```
/// use msgflow_wire::RawJson;
/// let raw = RawJson::from_json_text("{ \"path\": \"src/main.rs\",\n \"n\": 123456789012345678901234567890 }").unwrap();
/// assert_eq!(raw.get(), r#"{"path":"src/main.rs","n":123456789012345678901234567890}"#);
/// ```
#[derive(Clone)]
pub struct RawJson(Repr, Shape);

/// What the scan of a value on reading found out for the loadability verdict, so that the
/// verdict need not read its text again (`verdict/json_limits.rs`): its kind, an upper bound of
/// how deep its arrays and objects nest, and whether a string in it holds a `\u` escape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Shape {
    /// At least the deepest nesting of arrays and objects; `u8::MAX` when not counted.
    pub(crate) depth_bound: u8,
    /// Whether a string (the value, or one in an array or object) may hold a `\u` escape.
    pub(crate) unicode_escape: bool,
    /// The value's first byte (`{`, `[`, `"`, `n`, `t`, `f`, `-` or a digit), which says its
    /// JSON kind: asking for the kind does not touch the text (a slice of a large input, mostly
    /// out of the cache by the time the verdict walks the history).
    pub(crate) first: u8,
    /// Whether the value is an object whose values are all plain integers
    /// ([`holds_only_plain_integers`]; told for objects of up to [`PLAIN_INTEGERS_SCAN`] bytes).
    pub(crate) plain_int_values: bool,
}

impl Shape {
    /// Not counted (a value msgflow built, or one too deep for the byte): the verdict scans it.
    fn unknown(text: &str) -> Shape {
        Shape {
            depth_bound: u8::MAX,
            unicode_escape: true,
            first: text.as_bytes().first().copied().unwrap_or(b'n'),
            plain_int_values: false,
        }
    }
}

#[derive(Clone)]
enum Repr {
    Owned(Arc<str>),
    /// `input[start..end]`, a value as it was read from a shared input.
    Slice {
        input: Arc<String>,
        start: usize,
        end: usize,
    },
}

impl RawJson {
    /// The JSON text, compact.
    pub fn get(&self) -> &str {
        match &self.0 {
            Repr::Owned(text) => text,
            // The bounds were taken from a slice of this very input.
            Repr::Slice { input, start, end } => input.get(*start..*end).unwrap_or("null"),
        }
    }

    /// `null`.
    pub fn null() -> Self {
        Self::trusted("null")
    }

    /// `{}`.
    pub fn empty_object() -> Self {
        Self::trusted("{}")
    }

    /// Parses JSON text (any whitespace is removed), with the `NaN` / `Infinity` literals
    /// pydantic-ai reads (see [`crate::read_json`]).
    pub fn from_json_text(text: &str) -> Result<Self, serde_json::Error> {
        match serde_json::from_str::<&RawValue>(text) {
            Ok(raw) => Ok(Self::from_raw(raw)),
            Err(_) => crate::read_json(text),
        }
    }

    /// Serialises a value in compact form.
    pub fn from_value<T: Serialize + ?Sized>(value: &T) -> Result<Self, serde_json::Error> {
        Ok(Self::trusted_owned(serde_json::to_string(value)?))
    }

    /// A JSON string holding `text`.
    pub fn string(text: &str) -> Self {
        // serde_json escapes `"`, `\` and the control characters, and nothing else: a text
        // without them is its own JSON, quoted. A stream calls this for every argument fragment
        // (a few bytes each), where serialising costs more than the rest of the delta.
        let plain = text.bytes().all(|byte| byte >= 0x20 && byte != b'"' && byte != b'\\');
        if !plain {
            // Serialising a `&str` cannot fail.
            return Self::from_value(text).unwrap_or_else(|_| Self::null());
        }
        let shape = Shape {
            depth_bound: 0,
            unicode_escape: false,
            first: b'"',
            plain_int_values: false,
        };
        // A short one is quoted on the stack, so that the `Arc` is its only allocation.
        const ON_STACK: usize = 64;
        let mut buffer = [0u8; ON_STACK];
        if let Some(inner) = buffer.get_mut(1..text.len() + 1).filter(|_| text.len() + 2 <= ON_STACK) {
            inner.copy_from_slice(text.as_bytes());
            buffer[0] = b'"';
            buffer[text.len() + 1] = b'"';
            if let Ok(quoted) = std::str::from_utf8(&buffer[..text.len() + 2]) {
                return RawJson(Repr::Owned(Arc::from(quoted)), shape);
            }
        }
        RawJson(Repr::Owned(Arc::from(format!("\"{text}\""))), shape)
    }

    /// Takes a raw value, compacting it when it holds insignificant whitespace.
    pub fn from_raw(raw: &RawValue) -> Self {
        Self::from_read_text(raw.get())
    }

    /// A value's text as the parser delivered it: a slice of the shared input when there is
    /// one (see [`crate::Input`]), a copy otherwise.
    pub(crate) fn from_read_text(text: &str) -> Self {
        if crate::non_finite::restoring() {
            if let Some(restored) = crate::non_finite::restore(text) {
                return Self::from_owned_text(restored);
            }
        }
        let scan = scan(text.as_bytes());
        if scan.whitespace {
            // Whitespace between tokens changes neither the nesting nor the escapes.
            return RawJson(Repr::Owned(Arc::from(compact(text))), scan.shape);
        }
        match crate::rt::shared_input_range(text) {
            Some((input, start)) => RawJson(
                Repr::Slice {
                    input,
                    start,
                    end: start + text.len(),
                },
                scan.shape,
            ),
            None => RawJson(Repr::Owned(Arc::from(text)), scan.shape),
        }
    }

    /// A value's text msgflow holds itself (compacted when it holds whitespace).
    fn from_owned_text(text: String) -> Self {
        let scan = scan(text.as_bytes());
        let text = if scan.whitespace { compact(&text) } else { text };
        RawJson(Repr::Owned(Arc::from(text)), scan.shape)
    }

    /// Wraps text that is already known to be one compact JSON value.
    pub(crate) fn trusted(text: &str) -> Self {
        RawJson(Repr::Owned(Arc::from(text)), Shape::unknown(text))
    }

    fn trusted_owned(text: String) -> Self {
        let shape = Shape::unknown(&text);
        RawJson(Repr::Owned(Arc::from(text)), shape)
    }

    /// What reading the value found out about its nesting and escapes.
    pub(crate) fn shape(&self) -> Shape {
        self.1
    }

    /// The length of the text in bytes.
    pub(crate) fn text_len(&self) -> usize {
        match &self.0 {
            Repr::Owned(text) => text.len(),
            Repr::Slice { start, end, .. } => end - start,
        }
    }

    /// `true` for the JSON literal `null` (the only JSON value that starts with `n`).
    pub fn is_null(&self) -> bool {
        self.1.first == b'n'
    }

    /// `true` when the value is a JSON string.
    pub fn is_string(&self) -> bool {
        self.1.first == b'"'
    }

    /// `true` when the value is a JSON object.
    pub fn is_object(&self) -> bool {
        self.1.first == b'{'
    }

    /// `true` when the value is a JSON array.
    pub fn is_array(&self) -> bool {
        self.1.first == b'['
    }

    /// The unescaped text when the value is a JSON string.
    pub fn as_string(&self) -> Option<String> {
        if self.is_string() {
            serde_json::from_str(self.get()).ok()
        } else {
            None
        }
    }

    /// Parses the value as `T`.
    pub fn parse<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_str(self.get())
    }

    /// The value as a [`serde_json::Value`] (integers beyond 64 bits become floats there).
    ///
    /// msgflow carries opaque values at any depth, but a `Value` is built recursively, so a value
    /// nested deeper than [`crate::MAX_DEPTH`] levels cannot become one: it is an error here.
    pub fn try_to_value(&self) -> Result<serde_json::Value, serde_json::Error> {
        serde_json::from_str(self.get())
    }

    /// The value as a [`serde_json::Value`]; a value nested deeper than [`crate::MAX_DEPTH`]
    /// levels comes back as a JSON string holding its text (see [`RawJson::try_to_value`]).
    pub fn to_value(&self) -> serde_json::Value {
        self.try_to_value()
            .unwrap_or_else(|_| serde_json::Value::String(self.get().to_owned()))
    }
}

impl PartialEq for RawJson {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}

impl Eq for RawJson {}

impl std::hash::Hash for RawJson {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.get().hash(state);
    }
}

impl fmt::Debug for RawJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RawJson({})", self.get())
    }
}

impl fmt::Display for RawJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.get())
    }
}

impl From<serde_json::Value> for RawJson {
    fn from(value: serde_json::Value) -> Self {
        Self::from_value(&value).unwrap_or_else(|_| Self::null())
    }
}

impl From<&serde_json::Value> for RawJson {
    fn from(value: &serde_json::Value) -> Self {
        Self::from_value(value).unwrap_or_else(|_| Self::null())
    }
}

// Both directions speak serde_json's raw-value protocol (what `RawValue` does): a newtype
// struct named by the marker, holding the JSON text. serde_json writes the text verbatim and,
// reading from a slice, hands over the text borrowed from the input.

impl Serialize for RawJson {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut raw = serializer.serialize_struct(crate::rt::RAW_VALUE_TOKEN, 1)?;
        raw.serialize_field(crate::rt::RAW_VALUE_TOKEN, self.get())?;
        raw.end()
    }
}

impl<'de> Deserialize<'de> for RawJson {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct RawVisitor;
        impl<'de> Visitor<'de> for RawVisitor {
            type Value = RawJson;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawJson, A::Error> {
                if map.next_key::<IgnoredAny>()?.is_none() {
                    return Err(de::Error::invalid_type(de::Unexpected::Map, &self));
                }
                map.next_value_seed(RawTextSeed)
            }
        }
        deserializer.deserialize_newtype_struct(crate::rt::RAW_VALUE_TOKEN, RawVisitor)
    }
}

/// The text of a raw value: borrowed from the input when the parser reads a slice, a
/// temporary string when it reads a stream.
struct RawTextSeed;

impl<'de> DeserializeSeed<'de> for RawTextSeed {
    type Value = RawJson;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<RawJson, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for RawTextSeed {
    type Value = RawJson;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the text of a JSON value")
    }
    fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<RawJson, E> {
        Ok(RawJson::from_read_text(text))
    }
    fn visit_str<E: de::Error>(self, text: &str) -> Result<RawJson, E> {
        // A transient buffer never lies inside the shared input, so this copies.
        Ok(RawJson::from_read_text(text))
    }
}

/// Where the string starting after an opening quote at `start` ends (the index after its
/// closing quote), or the end of the input.
///
/// Only quotes stop the search: a quote is the closing one when an even number of backslashes
/// precede it. Tool output is full of `\n` escapes, so this is much faster than stopping at
/// every backslash.
pub(crate) fn skip_string(bytes: &[u8], start: usize) -> usize {
    // Keys and short values end within a few bytes, where a plain loop beats starting a
    // vectorised search.
    let mut i = start;
    let short_end = (start + SHORT_STRING).min(bytes.len());
    while i < short_end {
        match bytes.get(i) {
            Some(b'"') => return i + 1,
            Some(b'\\') => i += 2,
            _ => i += 1,
        }
    }
    while let Some(rest) = bytes.get(i..) {
        let Some(offset) = memchr::memchr(b'"', rest) else {
            return bytes.len();
        };
        let at = i + offset;
        let backslashes = bytes
            .get(start..at)
            .map_or(0, |before| before.iter().rev().take_while(|&&b| b == b'\\').count());
        if backslashes % 2 == 0 {
            return at + 1;
        }
        i = at + 1;
    }
    bytes.len()
}

/// How far [`skip_string`] looks byte by byte before it searches.
const SHORT_STRING: usize = 16;

/// What [`scan`] found in a value.
struct Scan {
    /// Whitespace outside strings: the value must be compacted.
    whitespace: bool,
    shape: Shape,
}

/// Classifies a value read: whitespace outside its strings (to compact it), an upper bound of
/// its nesting and whether it holds a `\u` escape (for the verdict's JSON limits).
///
/// Called on every opaque value read, so it classifies 64 bytes at a time, simdjson's first
/// stage in miniature (SIMD through `wide`'s safe API, a plain loop on targets without): see
/// [`BlockState::classify`]. Outside strings, valid JSON has no byte up to the space but
/// whitespace. The nesting bound is counted per block: the depth at its start plus its opening
/// brackets bounds the depth inside it, so no block is walked bracket by bracket.
fn scan(bytes: &[u8]) -> Scan {
    let first = bytes.first().copied().unwrap_or(b'n');
    // A raw value starts at its first token: only arrays and objects can hold whitespace.
    if !matches!(first, b'{' | b'[') {
        return Scan {
            whitespace: false,
            shape: Shape {
                depth_bound: 0,
                // Told exactly for a string short enough to look at while it is in the cache;
                // the verdict searches a longer one itself (in order, which is fast).
                unicode_escape: first == b'"' && (bytes.len() > SHORT_ESCAPE_SCAN || may_hold_unicode_escape(bytes)),
                first,
                plain_int_values: false,
            },
        };
    }
    let mut state = BlockState::default();
    // Each level opens and closes a bracket: a value of `n` bytes nests at most `n / 2` deep,
    // which for a short one (most values) is bound enough.
    if bytes.len() <= 2 * SHALLOW {
        let (mut whitespace, mut unicode_escape) = (false, false);
        any_block(bytes, |block| {
            let classes = state.classify::<true>(block);
            whitespace |= classes.whitespace != 0;
            unicode_escape |= classes.escaped_u != 0;
            false
        });
        return Scan {
            whitespace,
            shape: Shape {
                depth_bound: u8::try_from(bytes.len() / 2).unwrap_or(u8::MAX),
                unicode_escape,
                first,
                plain_int_values: first == b'{' && holds_only_plain_integers(bytes),
            },
        };
    }
    let (mut whitespace, mut unicode_escape) = (false, false);
    let (mut depth, mut bound) = (0usize, 0usize);
    any_block(bytes, |block| {
        let classes = state.classify::<true>(block);
        whitespace |= classes.whitespace != 0;
        unicode_escape |= classes.escaped_u != 0;
        let opens = classes.opens.count_ones() as usize;
        bound = bound.max(depth + opens);
        depth = (depth + opens).saturating_sub(classes.closes.count_ones() as usize);
        false
    });
    Scan {
        whitespace,
        shape: Shape {
            depth_bound: u8::try_from(bound).unwrap_or(u8::MAX),
            unicode_escape,
            first,
            plain_int_values: first == b'{' && bytes.len() <= PLAIN_INTEGERS_SCAN && holds_only_plain_integers(bytes),
        },
    }
}

/// The longest object [`scan`] looks at for [`holds_only_plain_integers`].
const PLAIN_INTEGERS_SCAN: usize = 1024;

/// Whether a compact object is `{"key":digits,...}` with only plain integer values (of at most
/// 4300 digits), as every usage's `details` is: the verdict's `dict[str, int]` needs no parse of
/// those.
pub(crate) fn holds_only_plain_integers(bytes: &[u8]) -> bool {
    let mut at = 1;
    loop {
        match bytes.get(at) {
            Some(b'}') => return at + 1 == bytes.len(),
            Some(b'"') => {}
            _ => return false,
        }
        // The key: a string without escapes.
        let Some(length) = memchr::memchr2(b'"', b'\\', &bytes[at + 1..]) else {
            return false;
        };
        at += 1 + length;
        if bytes.get(at) != Some(&b'"') || bytes.get(at + 1) != Some(&b':') {
            return false;
        }
        at += 2;
        if bytes.get(at) == Some(&b'-') {
            at += 1;
        }
        let digits = bytes[at.min(bytes.len())..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if digits == 0 || digits > crate::verdict::MAX_INT_DIGITS {
            return false;
        }
        at += digits;
        if bytes.get(at) == Some(&b',') {
            at += 1;
        }
    }
}

/// The longest string whose `\u` escapes [`scan`] looks for.
const SHORT_ESCAPE_SCAN: usize = 1024;

/// Whether a backslash followed by `u` occurs in `bytes` (an escaped backslash before a `u`
/// counts too: the verdict tells them apart).
fn may_hold_unicode_escape(bytes: &[u8]) -> bool {
    memchr::memchr(b'\\', bytes).is_some_and(|at| bytes[at..].windows(2).any(|pair| pair == b"\\u"))
}

/// `true` when valid JSON text holds whitespace outside its strings.
#[cfg(test)]
pub(crate) fn needs_compaction(bytes: &[u8]) -> bool {
    scan(bytes).whitespace
}

/// Bytes per block of [`scan`].
const BLOCK: usize = 64;

/// A nesting bound below every room the verdict may find (jiter's 200 levels less msgflow's
/// typed [`crate::MAX_DEPTH`] and one): values of up to twice as many bytes are not counted.
const SHALLOW: usize = 200 - crate::MAX_DEPTH - 8;

/// What pads the last block: no class of [`BlockState::classify`] (not whitespace, a bracket, a
/// quote, a backslash or `u`).
const PAD: u8 = b'x';

/// Whether arrays and objects in the compact JSON value `bytes` nest more than `room` deep
/// (brackets inside strings do not count), for the loadability verdict's nesting limit when
/// the bound [`scan`] recorded is above `room`.
///
/// The same block classification as [`scan`]: a block whose opening brackets cannot take the
/// depth past `room` is passed over with two popcounts; only a block that could is walked
/// bracket by bracket.
pub(crate) fn nests_deeper_than(bytes: &[u8], room: usize) -> bool {
    let mut state = BlockState::default();
    let mut depth = 0usize;
    any_block(bytes, |block| {
        let Classes { opens, closes, .. } = state.classify::<true>(block);
        if depth + opens.count_ones() as usize <= room {
            depth = (depth + opens.count_ones() as usize).saturating_sub(closes.count_ones() as usize);
            return false;
        }
        let mut brackets = opens | closes;
        while brackets != 0 {
            let bit = brackets & brackets.wrapping_neg();
            if opens & bit != 0 {
                depth += 1;
                if depth > room {
                    return true;
                }
            } else {
                depth = depth.saturating_sub(1);
            }
            brackets ^= bit;
        }
        false
    })
}

/// Calls `f` on each 64-byte block of `bytes` in order (the last one padded with [`PAD`]) until
/// it returns `true`; whether it did.
fn any_block(bytes: &[u8], mut f: impl FnMut(&[u8]) -> bool) -> bool {
    let mut blocks = bytes.chunks_exact(BLOCK);
    if blocks.by_ref().any(&mut f) {
        return true;
    }
    let rest = blocks.remainder();
    let mut last = [PAD; BLOCK];
    if let Some(head) = last.get_mut(..rest.len()) {
        head.copy_from_slice(rest);
    }
    f(&last)
}

/// The classes of one block's bytes, as bit masks (bit `i` for byte `i`).
struct Classes {
    /// Bytes up to the space outside strings.
    whitespace: u64,
    /// `[` and `{` outside strings.
    opens: u64,
    /// `]` and `}` outside strings.
    closes: u64,
    /// A `u` escaped by a backslash (a `\u` escape).
    escaped_u: u64,
}

/// What [`BlockState::classify`] carries from one block to the next.
#[derive(Default)]
struct BlockState {
    /// Whether the block starts inside a string.
    in_string: bool,
    /// Whether the block's first byte is escaped (the previous block ended on an odd run of
    /// backslashes).
    escaped: bool,
}

impl BlockState {
    /// Classifies one block (of [`BLOCK`] bytes; a shorter one is padded by the caller): bit
    /// masks of backslashes, quotes, brackets and bytes up to the space; the escaped bytes from
    /// the backslash runs; the bytes inside strings by a prefix XOR of the unescaped quotes.
    ///
    /// Without `NESTING`, only the whitespace is classified (the other masks are empty).
    fn classify<const NESTING: bool>(&mut self, block: &[u8]) -> Classes {
        let (low, high) = block.split_at(BLOCK / 2);
        let masks = |byte: u8| lane_mask(low, byte) | lane_mask(high, byte) << (BLOCK / 2);
        // `[` and `{` (and `]` and `}`) differ only in bit 0x20: one comparison finds both.
        let folded = |byte: u8| folded_mask(low, byte) | folded_mask(high, byte) << (BLOCK / 2);
        let backslashes = masks(b'\\');
        let escaped = self.escaped_bytes(backslashes);
        let quotes = masks(b'"') & !escaped;
        let at_most_space = at_most_space_mask(low) | at_most_space_mask(high) << (BLOCK / 2);
        let inside = prefix_xor(quotes) ^ if self.in_string { u64::MAX } else { 0 };
        self.in_string ^= quotes.count_ones() % 2 == 1;
        if !NESTING {
            return Classes {
                whitespace: at_most_space & !inside,
                opens: 0,
                closes: 0,
                escaped_u: 0,
            };
        }
        Classes {
            whitespace: at_most_space & !inside,
            opens: folded(b'{') & !inside,
            closes: folded(b'}') & !inside,
            escaped_u: if escaped == 0 { 0 } else { escaped & masks(b'u') },
        }
    }

    /// The bytes escaped by a backslash (simdjson's branchless `find_escaped`): in each run of
    /// backslashes every second one escapes the byte after it, counting from the run's start.
    fn escaped_bytes(&mut self, backslashes: u64) -> u64 {
        const EVEN_BITS: u64 = 0x5555_5555_5555_5555;
        let carried = u64::from(self.escaped);
        let backslashes = backslashes & !carried;
        let follows_escape = backslashes << 1 | carried;
        let odd_starts = backslashes & !EVEN_BITS & !follows_escape;
        let (even_starts, overflow) = odd_starts.overflowing_add(backslashes);
        self.escaped = overflow;
        (EVEN_BITS ^ (even_starts << 1)) & follows_escape
    }
}

/// Bit `i` set where byte `i` of the 32 `lanes` equals `byte`.
fn lane_mask(lanes: &[u8], byte: u8) -> u64 {
    u64::from(vector(lanes).simd_eq(wide::u8x32::splat(byte)).to_bitmask())
}

/// Bit `i` set where byte `i` of the 32 `lanes`, with bit 0x20 set, equals `byte` (`{` finds `[`
/// and `{`, `}` finds `]` and `}`).
fn folded_mask(lanes: &[u8], byte: u8) -> u64 {
    let folded = vector(lanes) | wide::u8x32::splat(0x20);
    u64::from(folded.simd_eq(wide::u8x32::splat(byte)).to_bitmask())
}

/// Bit `i` set where byte `i` of the 32 `lanes` is at most a space (whitespace, outside strings).
fn at_most_space_mask(lanes: &[u8]) -> u64 {
    let space = wide::u8x32::splat(b' ');
    u64::from(vector(lanes).max(space).simd_eq(space).to_bitmask())
}

/// The 32 bytes as a vector. Callers pass halves of a 64-byte block; were a slice ever shorter,
/// its zeros would read as whitespace, which only costs a needless compaction.
fn vector(lanes: &[u8]) -> wide::u8x32 {
    wide::u8x32::new(<[u8; 32]>::try_from(lanes).unwrap_or([0; 32]))
}

/// Bit `i` of the result is the XOR of bits `0..=i` of `bits`: for a mask of quotes, the bytes
/// from an opening quote up to (not including) its closing one.
fn prefix_xor(mut bits: u64) -> u64 {
    bits ^= bits << 1;
    bits ^= bits << 2;
    bits ^= bits << 4;
    bits ^= bits << 8;
    bits ^= bits << 16;
    bits ^= bits << 32;
    bits
}

/// Valid JSON text without its insignificant whitespace; strings and numbers as written.
pub(crate) fn compact(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&byte) = bytes.get(i) {
        match byte {
            b'"' => {
                let end = skip_string(bytes, i + 1);
                out.extend_from_slice(bytes.get(i..end).unwrap_or_default());
                i = end;
            }
            b' ' | b'\n' | b'\r' | b'\t' => i += 1,
            _ => {
                out.push(byte);
                i += 1;
            }
        }
    }
    // Only ASCII whitespace was removed, between tokens, so the bytes are still UTF-8.
    String::from_utf8(out).unwrap_or_else(|err| String::from_utf8_lossy(err.as_bytes()).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The byte-by-byte definition [`needs_compaction`] must agree with.
    fn whitespace_outside_strings(text: &str) -> bool {
        let (mut in_string, mut escaped) = (false, false);
        for byte in text.bytes() {
            if escaped {
                escaped = false;
            } else if in_string && byte == b'\\' {
                escaped = true;
            } else if byte == b'"' {
                in_string = !in_string;
            } else if !in_string && byte.is_ascii_whitespace() {
                return true;
            }
        }
        false
    }

    /// The deepest nesting of arrays and objects outside strings, and whether a `\\u` escape
    /// occurs, byte by byte: what [`scan`]'s shape must bound and tell.
    fn nesting_and_unicode_escape(text: &str) -> (usize, bool) {
        let (mut in_string, mut escaped) = (false, false);
        let (mut depth, mut deepest, mut unicode) = (0usize, 0usize, false);
        for byte in text.bytes() {
            if escaped {
                escaped = false;
                unicode |= byte == b'u';
            } else if in_string && byte == b'\\' {
                escaped = true;
            } else if byte == b'"' {
                in_string = !in_string;
            } else if !in_string && matches!(byte, b'[' | b'{') {
                depth += 1;
                deepest = deepest.max(depth);
            } else if !in_string && matches!(byte, b']' | b'}') {
                depth -= 1;
            }
        }
        (deepest, unicode)
    }

    /// JSON values whose strings are dense in what the scanner must get right: quotes,
    /// backslash runs (which become longer runs once escaped), spaces, control characters and
    /// multi-byte UTF-8, long enough to cross the 64-byte blocks.
    fn tricky_values() -> impl Strategy<Value = serde_json::Value> {
        let string = "[\\\\\"a \n\t\u{1}u\u{e9}\u{1F600}]{0,150}".prop_map(serde_json::Value::String);
        let leaf = prop_oneof![
            string,
            any::<i64>().prop_map(serde_json::Value::from),
            Just(serde_json::Value::Null),
        ];
        leaf.prop_recursive(4, 64, 8, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..8).prop_map(serde_json::Value::Array),
                prop::collection::vec(("[a\\\\\" ]{0,70}", inner), 0..8)
                    .prop_map(|entries| serde_json::Value::Object(entries.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn block_scanner_agrees_with_the_byte_walk(value in tricky_values(), pad in 0_usize..64) {
            let compact = serde_json::to_string(&value).unwrap();
            let pretty = serde_json::to_string_pretty(&value).unwrap();
            // Shift the text against the block boundaries: leading padding inside an array.
            let shifted = format!("[{}{compact}]", "0,".repeat(pad / 2));
            for text in [&compact, &pretty, &shifted] {
                let container = matches!(text.as_bytes().first(), Some(b'{' | b'['));
                let expected = container && whitespace_outside_strings(text);
                prop_assert_eq!(needs_compaction(text.as_bytes()), expected, "{}", text);
                if text.starts_with('"') {
                    let (_, unicode) = nesting_and_unicode_escape(text);
                    prop_assert!(scan(text.as_bytes()).shape.unicode_escape || !unicode, "{}", text);
                }
                if container {
                    let (deepest, unicode) = nesting_and_unicode_escape(text);
                    let shape = scan(text.as_bytes()).shape;
                    prop_assert!(usize::from(shape.depth_bound) >= deepest, "{}", text);
                    // Never a `\\u` escape missed; counted exactly where counted at all.
                    prop_assert!(shape.unicode_escape || !unicode, "{}", text);
                    prop_assert_eq!(shape.unicode_escape, unicode, "{}", text);
                    // The exact walk agrees at the depth itself.
                    prop_assert!(!nests_deeper_than(text.as_bytes(), deepest), "{}", text);
                    prop_assert_eq!(nests_deeper_than(text.as_bytes(), deepest.saturating_sub(1)), deepest > 0, "{}", text);
                }
            }
            prop_assert!(!needs_compaction(compact.as_bytes()));
        }

        /// The quoting fast path writes what serde_json writes, and a shape the scan would agree
        /// with, on every length around the stack buffer's and every byte class.
        #[test]
        fn strings_are_quoted_as_serde_json_quotes_them(text in "[a-z\"\\\\\u{0}-\u{1f}\u{7f}é😀 ]{0,80}") {
            let raw = RawJson::string(&text);
            let expected = serde_json::to_string(&text).unwrap();
            prop_assert_eq!(raw.get(), expected.as_str());
            prop_assert_eq!(raw.as_string(), Some(text.clone()));
            let scanned = scan(expected.as_bytes()).shape;
            prop_assert!(raw.1.unicode_escape || !scanned.unicode_escape);
            prop_assert_eq!(raw.1.first, b'"');
        }
    }

    #[test]
    fn compaction_keeps_strings_and_numbers() {
        let text = "{ \"a b\" : [1E5 , \"x\\\" y\" ],\n\t\"c\":-0.0 }";
        assert!(needs_compaction(text.as_bytes()));
        assert_eq!(compact(text), "{\"a b\":[1E5,\"x\\\" y\"],\"c\":-0.0}");
        assert!(!needs_compaction(compact(text).as_bytes()));
    }

    #[test]
    fn values_parsed_from_an_input_are_slices_of_it_and_outlive_it() {
        let text = r#"[{"parts":[{"tool_name":"f","content":{"a": [1, 2]},"tool_call_id":"c","metadata":null,"timestamp":"2025-01-02T03:04:05Z","part_kind":"tool-return"}],"kind":"request"}]"#;
        let input = crate::Input::from(text.to_owned());
        let history = input.parse().unwrap();
        drop(input);
        let crate::ModelMessage::Request(request) = &history[0] else {
            panic!("a request")
        };
        let crate::ModelRequestPart::ToolReturn(part) = &request.parts[0] else {
            panic!("a tool return")
        };
        // Whitespace is removed even from a shared input (the value becomes a copy).
        assert_eq!(part.content.get(), r#"{"a":[1,2]}"#);
        assert!(matches!(part.content.0, Repr::Owned(_)));
        assert_eq!(history, crate::from_str(text).unwrap());
    }

    #[test]
    fn compact_values_from_an_input_share_it() {
        let input = crate::Input::from(r#"[{"parts":[{"tool_name":"f","content":[1,"two"],"tool_call_id":"c","timestamp":"2025-01-02T03:04:05Z","part_kind":"tool-return"}],"kind":"request"}]"#.to_owned());
        let history = input.parse().unwrap();
        let crate::ModelMessage::Request(request) = &history[0] else {
            panic!("a request")
        };
        let crate::ModelRequestPart::ToolReturn(part) = &request.parts[0] else {
            panic!("a tool return")
        };
        assert_eq!(part.content.get(), r#"[1,"two"]"#);
        let Repr::Slice { input: shared, .. } = &part.content.0 else {
            panic!("a slice")
        };
        assert!(std::ptr::eq(shared.as_str(), input.as_str()));
        // A copied parse owns its values.
        let copied = crate::from_str(input.as_str()).unwrap();
        let crate::ModelMessage::Request(request) = &copied[0] else {
            panic!("a request")
        };
        let crate::ModelRequestPart::ToolReturn(part) = &request.parts[0] else {
            panic!("a tool return")
        };
        assert!(matches!(part.content.0, Repr::Owned(_)));
    }

    /// The marker is serde_json's: with a wrong one, serde_json would write and expect a
    /// one-key object instead of the value itself.
    #[test]
    fn raw_values_are_handed_over_without_rescanning() {
        let text = r#"{"n":1.50,"s":"a\u00e9"}"#;
        let raw: RawJson = serde_json::from_str(text).unwrap();
        assert_eq!(raw.get(), text);
        assert_eq!(serde_json::to_string(&raw).unwrap(), text);
        // A reader hands the text over as a temporary string; it is copied and compacted.
        let streamed: RawJson = serde_json::from_reader("[1, 2]".as_bytes()).unwrap();
        assert_eq!(streamed.get(), "[1,2]");
        assert!(matches!(streamed.0, Repr::Owned(_)));
    }

    #[test]
    fn compact_text_is_kept() {
        let raw = RawJson::from_json_text(r#"{"k":"v w","n":[1,2]}"#).unwrap();
        assert_eq!(raw.get(), r#"{"k":"v w","n":[1,2]}"#);
        assert!(RawJson::null().is_null());
        assert_eq!(RawJson::string("a\"b").as_string().as_deref(), Some("a\"b"));
    }
}
