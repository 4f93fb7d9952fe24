//! [`Predicate`]: a filter on rows, as SQL writes it.

use std::fmt;

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    /// `=`
    Eq,
    /// `!=` / `<>`
    NotEq,
    /// `<`
    Lt,
    /// `<=`
    LtEq,
    /// `>`
    Gt,
    /// `>=`
    GtEq,
}

impl CmpOp {
    /// The operator that holds where this one does not (for non-null operands).
    pub fn negate(self) -> CmpOp {
        match self {
            CmpOp::Eq => CmpOp::NotEq,
            CmpOp::NotEq => CmpOp::Eq,
            CmpOp::Lt => CmpOp::GtEq,
            CmpOp::LtEq => CmpOp::Gt,
            CmpOp::Gt => CmpOp::LtEq,
            CmpOp::GtEq => CmpOp::Lt,
        }
    }

    fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "=",
            CmpOp::NotEq => "!=",
            CmpOp::Lt => "<",
            CmpOp::LtEq => "<=",
            CmpOp::Gt => ">",
            CmpOp::GtEq => ">=",
        }
    }
}

/// A literal value, converted to the compared column's type when the read starts.
#[derive(Debug, Clone, PartialEq)]
pub enum Literal {
    /// `NULL`: every comparison with it is null.
    Null,
    /// `TRUE` / `FALSE`.
    Bool(bool),
    /// An integer (up to the i64 range).
    Int(i64),
    /// An integer above the i64 range.
    UInt(u64),
    /// A number with a fraction or an exponent.
    Float(f64),
    /// A string: for string columns, and for dates, times, timestamps and decimals written
    /// as text.
    Str(String),
    /// Bytes, for binary columns.
    Bytes(Vec<u8>),
}

impl From<bool> for Literal {
    fn from(v: bool) -> Self {
        Literal::Bool(v)
    }
}

macro_rules! literal_from_int {
    ($($t:ty),*) => {$(
        impl From<$t> for Literal {
            fn from(v: $t) -> Self {
                Literal::Int(i64::from(v))
            }
        }
    )*};
}
literal_from_int!(i8, i16, i32, i64, u8, u16, u32);

impl From<u64> for Literal {
    fn from(v: u64) -> Self {
        match i64::try_from(v) {
            Ok(i) => Literal::Int(i),
            Err(_) => Literal::UInt(v),
        }
    }
}

impl From<f64> for Literal {
    fn from(v: f64) -> Self {
        Literal::Float(v)
    }
}

impl From<f32> for Literal {
    fn from(v: f32) -> Self {
        Literal::Float(f64::from(v))
    }
}

impl From<&str> for Literal {
    fn from(v: &str) -> Self {
        Literal::Str(v.to_string())
    }
}

impl From<String> for Literal {
    fn from(v: String) -> Self {
        Literal::Str(v)
    }
}

impl From<Vec<u8>> for Literal {
    fn from(v: Vec<u8>) -> Self {
        Literal::Bytes(v)
    }
}

impl fmt::Display for Literal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Literal::Null => write!(f, "NULL"),
            Literal::Bool(b) => write!(f, "{}", if *b { "TRUE" } else { "FALSE" }),
            Literal::Int(v) => write!(f, "{v}"),
            Literal::UInt(v) => write!(f, "{v}"),
            Literal::Float(v) => write!(f, "{v:?}"),
            Literal::Str(s) => write!(f, "'{}'", s.replace('\'', "''")),
            Literal::Bytes(b) => {
                write!(f, "X'")?;
                for byte in b {
                    write!(f, "{byte:02X}")?;
                }
                write!(f, "'")
            }
        }
    }
}

/// A filter on rows.
///
/// [`Predicate`]: a filter on rows, as SQL writes it: comparisons of a column with a literal,
/// `IN` lists, `IS [NOT] NULL`, `AND`, `OR`, `NOT`, with SQL's three-valued logic (a
/// comparison with a null is null, `NOT` of null is null, a row is kept only where the
/// predicate is true).
///
/// ```
/// use parq::read::col;
///
/// let p = col("price").gt(100).and(col("tag").is_in(["a", "b"]).not());
/// assert_eq!(p.to_string(), "(\"price\" > 100 AND NOT \"tag\" IN ('a', 'b'))");
/// ```
///
/// Literals are converted to the column's type when the read starts (`filter/bind.rs`); one
/// that cannot be is an error then, before any data is read.
#[derive(Debug, Clone, PartialEq)]
pub enum Predicate {
    /// `column op value`.
    Compare {
        /// The column (a top-level field by name, or a dotted path: see [`col`]).
        column: String,
        /// The operator.
        op: CmpOp,
        /// The literal.
        value: Literal,
    },
    /// `column [NOT] IN (values)`: as an `OR` of equalities (so `x IN (1, NULL)` is null,
    /// not false, where `x` is not 1).
    In {
        /// The column.
        column: String,
        /// The values.
        values: Vec<Literal>,
        /// `NOT IN`.
        negated: bool,
    },
    /// `column IS [NOT] NULL`.
    IsNull {
        /// The column.
        column: String,
        /// `IS NOT NULL`.
        negated: bool,
    },
    /// `ST_Intersects(column, ST_MakeEnvelope(xmin, ymin, xmax, ymax))` on a GEOMETRY /
    /// GEOGRAPHY (WKB binary) column: the value's envelope (the x/y box of its vertices,
    /// edges included) meets the rectangle. This is envelope intersection, DuckDB's `&&`,
    /// not exact geometric intersection: a line passing near the rectangle's corner can
    /// match without touching it. Null, empty and invalid WKB values do not match.
    IntersectsBbox {
        /// The column.
        column: String,
        /// The rectangle: `[xmin, ymin, xmax, ymax]`.
        rect: [f64; 4],
    },
    /// Both hold.
    And(Box<Predicate>, Box<Predicate>),
    /// Either holds.
    Or(Box<Predicate>, Box<Predicate>),
    /// Does not hold.
    Not(Box<Predicate>),
}

/// A column to build a predicate on.
#[derive(Debug, Clone)]
pub struct Column(String);

/// The column `name`: a top-level field, or by dotted path a primitive field inside
/// structs (`"s.a.b"`) or an object field of a Variant column (`"v.a"`); a top-level field
/// whose name has dots is taken first.
///
/// ```
/// use parq::read::{col, parse_filter};
///
/// let p = col("qty").is_not_null().and(col("qty").lt_eq(10).or(col("tag").eq("rush")));
/// assert_eq!(p, parse_filter("qty IS NOT NULL AND (qty <= 10 OR tag = 'rush')")?);
/// # Ok::<(), parq::Error>(())
/// ```
pub fn col(name: impl Into<String>) -> Column {
    Column(name.into())
}

impl Column {
    fn cmp(self, op: CmpOp, value: impl Into<Literal>) -> Predicate {
        Predicate::Compare {
            column: self.0,
            op,
            value: value.into(),
        }
    }

    /// `column = value`
    pub fn eq(self, value: impl Into<Literal>) -> Predicate {
        self.cmp(CmpOp::Eq, value)
    }

    /// `column != value`
    pub fn not_eq(self, value: impl Into<Literal>) -> Predicate {
        self.cmp(CmpOp::NotEq, value)
    }

    /// `column < value`
    pub fn lt(self, value: impl Into<Literal>) -> Predicate {
        self.cmp(CmpOp::Lt, value)
    }

    /// `column <= value`
    pub fn lt_eq(self, value: impl Into<Literal>) -> Predicate {
        self.cmp(CmpOp::LtEq, value)
    }

    /// `column > value`
    pub fn gt(self, value: impl Into<Literal>) -> Predicate {
        self.cmp(CmpOp::Gt, value)
    }

    /// `column >= value`
    pub fn gt_eq(self, value: impl Into<Literal>) -> Predicate {
        self.cmp(CmpOp::GtEq, value)
    }

    /// `column IN (values)`
    pub fn is_in<L: Into<Literal>>(self, values: impl IntoIterator<Item = L>) -> Predicate {
        Predicate::In {
            column: self.0,
            values: values.into_iter().map(Into::into).collect(),
            negated: false,
        }
    }

    /// `column IS NULL`
    pub fn is_null(self) -> Predicate {
        Predicate::IsNull {
            column: self.0,
            negated: false,
        }
    }

    /// `column IS NOT NULL`
    pub fn is_not_null(self) -> Predicate {
        Predicate::IsNull {
            column: self.0,
            negated: true,
        }
    }

    /// `ST_Intersects(column, ST_MakeEnvelope(xmin, ymin, xmax, ymax))`: the envelope of the
    /// column's WKB value meets the rectangle (see [`Predicate::IntersectsBbox`]).
    ///
    /// ```
    /// use parq::read::{col, parse_filter};
    ///
    /// let p = col("geom").intersects_bbox(-10.0, 40.0, 5.5, 52.0);
    /// assert_eq!(p, parse_filter("ST_Intersects(geom, ST_MakeEnvelope(-10, 40, 5.5, 52))")?);
    /// # Ok::<(), parq::Error>(())
    /// ```
    pub fn intersects_bbox(self, xmin: f64, ymin: f64, xmax: f64, ymax: f64) -> Predicate {
        Predicate::IntersectsBbox {
            column: self.0,
            rect: [xmin, ymin, xmax, ymax],
        }
    }
}

impl Predicate {
    /// `self AND other`
    pub fn and(self, other: Predicate) -> Predicate {
        Predicate::And(Box::new(self), Box::new(other))
    }

    /// `self OR other`
    pub fn or(self, other: Predicate) -> Predicate {
        Predicate::Or(Box::new(self), Box::new(other))
    }

    /// `NOT self`
    #[allow(clippy::should_implement_trait)]
    pub fn not(self) -> Predicate {
        Predicate::Not(Box::new(self))
    }

    /// The columns the predicate reads, each once, in order of appearance.
    pub fn columns(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        self.visit_columns(&mut |c| {
            if !out.contains(&c) {
                out.push(c);
            }
        });
        out
    }

    fn visit_columns<'a>(&'a self, f: &mut dyn FnMut(&'a str)) {
        match self {
            Predicate::Compare { column, .. }
            | Predicate::In { column, .. }
            | Predicate::IsNull { column, .. }
            | Predicate::IntersectsBbox { column, .. } => f(column),
            Predicate::And(a, b) | Predicate::Or(a, b) => {
                a.visit_columns(f);
                b.visit_columns(f);
            }
            Predicate::Not(a) => a.visit_columns(f),
        }
    }
}

impl fmt::Display for Predicate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = |c: &str| format!("\"{}\"", c.replace('"', "\"\""));
        match self {
            Predicate::Compare { column, op, value } => {
                write!(f, "{} {} {value}", name(column), op.symbol())
            }
            Predicate::In {
                column,
                values,
                negated,
            } => {
                let list: Vec<String> = values.iter().map(|v| v.to_string()).collect();
                let not = if *negated { "NOT " } else { "" };
                write!(f, "{} {not}IN ({})", name(column), list.join(", "))
            }
            Predicate::IsNull { column, negated } => {
                let not = if *negated { "NOT " } else { "" };
                write!(f, "{} IS {not}NULL", name(column))
            }
            Predicate::IntersectsBbox { column, rect } => {
                let [x0, y0, x1, y1] = rect;
                write!(
                    f,
                    "ST_Intersects({}, ST_MakeEnvelope({x0:?}, {y0:?}, {x1:?}, {y1:?}))",
                    name(column)
                )
            }
            Predicate::And(a, b) => write!(f, "({a} AND {b})"),
            Predicate::Or(a, b) => write!(f, "({a} OR {b})"),
            Predicate::Not(a) => write!(f, "NOT {a}"),
        }
    }
}
