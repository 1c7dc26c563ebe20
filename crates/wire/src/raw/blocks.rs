//! The 64-byte block classifier behind the scan of a raw value: bit masks of whitespace, brackets
//! and `\u` escapes outside strings, simdjson's first stage in miniature.

/// Bytes per block of [`scan`](super::scan::scan).
const BLOCK: usize = 64;

/// What pads the last block: no class of [`BlockState::classify`] (not whitespace, a bracket, a
/// quote, a backslash or `u`).
const PAD: u8 = b'x';

/// Calls `f` on each 64-byte block of `bytes` in order (the last one padded with [`PAD`]) until
/// it returns `true`; whether it did.
pub(super) fn any_block(bytes: &[u8], mut f: impl FnMut(&[u8]) -> bool) -> bool {
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
pub(super) struct Classes {
    /// Bytes up to the space outside strings.
    pub(super) whitespace: u64,
    /// `[` and `{` outside strings.
    pub(super) opens: u64,
    /// `]` and `}` outside strings.
    pub(super) closes: u64,
    /// A `u` escaped by a backslash (a `\u` escape).
    pub(super) escaped_u: u64,
}

/// What [`BlockState::classify`] carries from one block to the next.
#[derive(Default)]
pub(super) struct BlockState {
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
    pub(super) fn classify<const NESTING: bool>(&mut self, block: &[u8]) -> Classes {
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
