//! parquet.thrift's enums (Type, ConvertedType, FieldRepetitionType, Encoding,
//! CompressionCodec, PageType, BoundaryOrder, EdgeInterpolationAlgorithm) and the compact
//! [`EncodingList`]. Unknown values are kept, never an error.

macro_rules! thrift_enum {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident = $value:literal => $spec:literal,)* }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vdoc])* $variant,)*
            /// A value this version of parq does not know.
            Unknown(i32),
        }

        impl $name {
            /// The enum for a Thrift value.
            #[inline]
            pub fn from_thrift(v: i32) -> Self {
                match v {
                    $($value => $name::$variant,)*
                    other => $name::Unknown(other),
                }
            }

            /// The Thrift value.
            #[inline]
            pub fn to_thrift(self) -> i32 {
                match self {
                    $($name::$variant => $value,)*
                    $name::Unknown(v) => v,
                }
            }

            /// The name in parquet.thrift (e.g. `"RLE_DICTIONARY"`); `"UNKNOWN"` for unknown
            /// values.
            pub fn spec_name(self) -> &'static str {
                match self {
                    $($name::$variant => $spec,)*
                    $name::Unknown(_) => "UNKNOWN",
                }
            }

            /// The enum for a parquet.thrift name, case-insensitive.
            pub fn from_spec_name(name: &str) -> Option<Self> {
                $(if name.eq_ignore_ascii_case($spec) { return Some($name::$variant); })*
                None
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                match self {
                    $name::Unknown(v) => write!(f, "UNKNOWN({v})"),
                    other => f.write_str(other.spec_name()),
                }
            }
        }
    };
}

thrift_enum! {
    /// `Type`: the physical type of a column.
    PhysicalType {
        /// `BOOLEAN`
        Boolean = 0 => "BOOLEAN",
        /// `INT32`
        Int32 = 1 => "INT32",
        /// `INT64`
        Int64 = 2 => "INT64",
        /// `INT96` (deprecated timestamps)
        Int96 = 3 => "INT96",
        /// `FLOAT`
        Float = 4 => "FLOAT",
        /// `DOUBLE`
        Double = 5 => "DOUBLE",
        /// `BYTE_ARRAY`
        ByteArray = 6 => "BYTE_ARRAY",
        /// `FIXED_LEN_BYTE_ARRAY`
        FixedLenByteArray = 7 => "FIXED_LEN_BYTE_ARRAY",
    }
}

thrift_enum! {
    /// `ConvertedType`: the legacy logical annotations.
    ConvertedType {
        /// `UTF8`
        Utf8 = 0 => "UTF8",
        /// `MAP`
        Map = 1 => "MAP",
        /// `MAP_KEY_VALUE`
        MapKeyValue = 2 => "MAP_KEY_VALUE",
        /// `LIST`
        List = 3 => "LIST",
        /// `ENUM`
        Enum = 4 => "ENUM",
        /// `DECIMAL`
        Decimal = 5 => "DECIMAL",
        /// `DATE`
        Date = 6 => "DATE",
        /// `TIME_MILLIS`
        TimeMillis = 7 => "TIME_MILLIS",
        /// `TIME_MICROS`
        TimeMicros = 8 => "TIME_MICROS",
        /// `TIMESTAMP_MILLIS`
        TimestampMillis = 9 => "TIMESTAMP_MILLIS",
        /// `TIMESTAMP_MICROS`
        TimestampMicros = 10 => "TIMESTAMP_MICROS",
        /// `UINT_8`
        Uint8 = 11 => "UINT_8",
        /// `UINT_16`
        Uint16 = 12 => "UINT_16",
        /// `UINT_32`
        Uint32 = 13 => "UINT_32",
        /// `UINT_64`
        Uint64 = 14 => "UINT_64",
        /// `INT_8`
        Int8 = 15 => "INT_8",
        /// `INT_16`
        Int16 = 16 => "INT_16",
        /// `INT_32`
        Int32 = 17 => "INT_32",
        /// `INT_64`
        Int64 = 18 => "INT_64",
        /// `JSON`
        Json = 19 => "JSON",
        /// `BSON`
        Bson = 20 => "BSON",
        /// `INTERVAL`
        Interval = 21 => "INTERVAL",
    }
}

thrift_enum! {
    /// `FieldRepetitionType`.
    Repetition {
        /// `REQUIRED`: exactly one value.
        Required = 0 => "REQUIRED",
        /// `OPTIONAL`: zero or one value.
        Optional = 1 => "OPTIONAL",
        /// `REPEATED`: zero or more values.
        Repeated = 2 => "REPEATED",
    }
}

thrift_enum! {
    /// `Encoding`: how values or levels are encoded in a page.
    Encoding {
        /// `PLAIN`
        Plain = 0 => "PLAIN",
        /// `PLAIN_DICTIONARY` (deprecated dictionary encoding)
        PlainDictionary = 2 => "PLAIN_DICTIONARY",
        /// `RLE`: the RLE/bit-packed hybrid.
        Rle = 3 => "RLE",
        /// `BIT_PACKED` (deprecated levels encoding)
        BitPacked = 4 => "BIT_PACKED",
        /// `DELTA_BINARY_PACKED`
        DeltaBinaryPacked = 5 => "DELTA_BINARY_PACKED",
        /// `DELTA_LENGTH_BYTE_ARRAY`
        DeltaLengthByteArray = 6 => "DELTA_LENGTH_BYTE_ARRAY",
        /// `DELTA_BYTE_ARRAY`
        DeltaByteArray = 7 => "DELTA_BYTE_ARRAY",
        /// `RLE_DICTIONARY`
        RleDictionary = 8 => "RLE_DICTIONARY",
        /// `BYTE_STREAM_SPLIT`
        ByteStreamSplit = 9 => "BYTE_STREAM_SPLIT",
        /// `ALP`: adaptive lossless floating point (format 2.14, preview).
        Alp = 10 => "ALP",
    }
}

thrift_enum! {
    /// `CompressionCodec`.
    Compression {
        /// `UNCOMPRESSED`
        Uncompressed = 0 => "UNCOMPRESSED",
        /// `SNAPPY`
        Snappy = 1 => "SNAPPY",
        /// `GZIP`
        Gzip = 2 => "GZIP",
        /// `LZO`
        Lzo = 3 => "LZO",
        /// `BROTLI`
        Brotli = 4 => "BROTLI",
        /// `LZ4` (deprecated, Hadoop-framed or raw)
        Lz4 = 5 => "LZ4",
        /// `ZSTD`
        Zstd = 6 => "ZSTD",
        /// `LZ4_RAW`
        Lz4Raw = 7 => "LZ4_RAW",
    }
}

thrift_enum! {
    /// `PageType`.
    PageType {
        /// `DATA_PAGE`
        DataPage = 0 => "DATA_PAGE",
        /// `INDEX_PAGE`
        IndexPage = 1 => "INDEX_PAGE",
        /// `DICTIONARY_PAGE`
        DictionaryPage = 2 => "DICTIONARY_PAGE",
        /// `DATA_PAGE_V2`
        DataPageV2 = 3 => "DATA_PAGE_V2",
    }
}

thrift_enum! {
    /// `BoundaryOrder`: the order of min/max values across the pages of a column index.
    BoundaryOrder {
        /// `UNORDERED`
        Unordered = 0 => "UNORDERED",
        /// `ASCENDING`
        Ascending = 1 => "ASCENDING",
        /// `DESCENDING`
        Descending = 2 => "DESCENDING",
    }
}

thrift_enum! {
    /// `EdgeInterpolationAlgorithm`, of the GEOGRAPHY logical type.
    EdgeInterpolationAlgorithm {
        /// `SPHERICAL`
        Spherical = 0 => "SPHERICAL",
        /// `VINCENTY`
        Vincenty = 1 => "VINCENTY",
        /// `THOMAS`
        Thomas = 2 => "THOMAS",
        /// `ANDOYER`
        Andoyer = 3 => "ANDOYER",
        /// `KARNEY`
        Karney = 4 => "KARNEY",
    }
}

/// The `encodings` list of a column chunk, stored inline without allocation: up to 15
/// encodings of value 0-15 in one `u64` (4 bits each, the count in the top 4 bits), in the
/// order the file lists them, so re-encoding writes the same list. Longer lists or larger
/// values spill to the heap (no writer produces them).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EncodingList(EncodingRepr);

#[derive(Debug, Clone, PartialEq, Eq)]
enum EncodingRepr {
    Inline(u64),
    Heap(Box<[i32]>),
}

impl Default for EncodingRepr {
    fn default() -> Self {
        EncodingRepr::Inline(0)
    }
}

impl EncodingList {
    const MAX_INLINE: u64 = 15;

    /// An empty list.
    pub fn new() -> Self {
        EncodingList(EncodingRepr::Inline(0))
    }

    /// The inline form (count in the top 4 bits, values in nibbles), if the list has it.
    #[inline]
    pub fn inline_bits(&self) -> Option<u64> {
        match self.0 {
            EncodingRepr::Inline(bits) => Some(bits),
            EncodingRepr::Heap(_) => None,
        }
    }

    /// The list whose inline form is `bits` (see [`EncodingList::inline_bits`]); counts over
    /// 15 are clamped.
    #[inline]
    pub fn from_inline_bits(bits: u64) -> Self {
        EncodingList(EncodingRepr::Inline(bits))
    }

    /// Appends an encoding.
    #[inline]
    pub fn push(&mut self, e: Encoding) {
        let v = e.to_thrift();
        match &mut self.0 {
            EncodingRepr::Inline(bits) => {
                let n = *bits >> 60;
                if n < Self::MAX_INLINE && (0..16).contains(&v) {
                    *bits = ((n + 1) << 60) | (*bits & ((1 << 60) - 1)) | ((v as u64) << (4 * n));
                } else {
                    let mut all: Vec<i32> = self.iter().map(Encoding::to_thrift).collect();
                    all.push(v);
                    self.0 = EncodingRepr::Heap(all.into_boxed_slice());
                }
            }
            EncodingRepr::Heap(h) => {
                let mut all = h.to_vec();
                all.push(v);
                *h = all.into_boxed_slice();
            }
        }
    }

    /// The number of encodings.
    pub fn len(&self) -> usize {
        match &self.0 {
            EncodingRepr::Inline(bits) => (bits >> 60) as usize,
            EncodingRepr::Heap(h) => h.len(),
        }
    }

    /// True if the list is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The encodings in file order.
    pub fn iter(&self) -> impl Iterator<Item = Encoding> + '_ {
        let (bits, heap): (u64, &[i32]) = match &self.0 {
            EncodingRepr::Inline(b) => (*b, &[]),
            EncodingRepr::Heap(h) => (0, h),
        };
        let n = (bits >> 60) as usize;
        (0..n)
            .map(move |i| Encoding::from_thrift(((bits >> (4 * i)) & 0xf) as i32))
            .chain(heap.iter().map(|&v| Encoding::from_thrift(v)))
    }

    /// A bitmask with bit `e` set for every encoding value `e` < 64 in the list.
    pub fn mask(&self) -> u64 {
        self.iter()
            .map(Encoding::to_thrift)
            .filter(|v| (0..64).contains(v))
            .fold(0, |m, v| m | (1u64 << v))
    }

    /// True if the list contains `e`.
    pub fn contains(&self, e: Encoding) -> bool {
        self.iter().any(|x| x == e)
    }

    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        match &self.0 {
            EncodingRepr::Inline(_) => 0,
            EncodingRepr::Heap(h) => h.len() * 4,
        }
    }
}
