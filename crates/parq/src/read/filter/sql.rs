//! SQL filter expressions to [`Predicate`]s ([`parse_filter`]).

use crate::read::filter::predicate::{CmpOp, Literal, Predicate};
use crate::{Error, ErrorKind, Result};

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Ident(String),
    /// A bare word: an identifier or a keyword.
    Word(String),
    Str(String),
    Number(String),
    Op(CmpOp),
    LParen,
    RParen,
    Comma,
}

fn error(text: &str, at: usize, message: impl std::fmt::Display) -> Error {
    Error::new(ErrorKind::InvalidArgument(format!(
        "filter `{text}`: {message} at character {}",
        at + 1
    )))
}

/// The tokens of `text`, each with its start (a character index).
fn tokens(text: &str) -> Result<Vec<(Token, usize)>> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        let start = i;
        let quoted = |i: &mut usize, q: char| -> Result<String> {
            let mut s = String::new();
            *i += 1;
            loop {
                match chars.get(*i) {
                    None => return Err(error(text, start, format!("unterminated {q}"))),
                    Some(&ch) if ch == q => {
                        if chars.get(*i + 1) == Some(&q) {
                            s.push(q);
                            *i += 2;
                        } else {
                            *i += 1;
                            return Ok(s);
                        }
                    }
                    Some(&ch) => {
                        s.push(ch);
                        *i += 1;
                    }
                }
            }
        };
        let token = match c {
            c if c.is_whitespace() => {
                i += 1;
                continue;
            }
            '(' => {
                i += 1;
                Token::LParen
            }
            ')' => {
                i += 1;
                Token::RParen
            }
            ',' => {
                i += 1;
                Token::Comma
            }
            '\'' => Token::Str(quoted(&mut i, '\'')?),
            '"' => Token::Ident(quoted(&mut i, '"')?),
            '=' | '!' | '<' | '>' => {
                let next = chars.get(i + 1).copied();
                let (op, len) = match (c, next) {
                    ('=', _) => (CmpOp::Eq, 1),
                    ('!', Some('=')) => (CmpOp::NotEq, 2),
                    ('<', Some('>')) => (CmpOp::NotEq, 2),
                    ('<', Some('=')) => (CmpOp::LtEq, 2),
                    ('<', _) => (CmpOp::Lt, 1),
                    ('>', Some('=')) => (CmpOp::GtEq, 2),
                    ('>', _) => (CmpOp::Gt, 1),
                    _ => return Err(error(text, i, "`!` without `=`")),
                };
                i += len;
                Token::Op(op)
            }
            c if c.is_ascii_digit() || c == '.' || c == '-' || c == '+' => {
                let mut s = String::new();
                s.push(c);
                i += 1;
                while let Some(&d) = chars.get(i) {
                    let exp_sign =
                        (d == '+' || d == '-') && matches!(s.chars().last(), Some('e' | 'E'));
                    if d.is_ascii_digit() || d == '.' || d == 'e' || d == 'E' || exp_sign {
                        s.push(d);
                        i += 1;
                    } else {
                        break;
                    }
                }
                Token::Number(s)
            }
            c if c.is_alphabetic() || c == '_' => {
                let mut s = String::new();
                while let Some(&d) = chars.get(i) {
                    if d.is_alphanumeric() || d == '_' || d == '.' {
                        s.push(d);
                        i += 1;
                    } else {
                        break;
                    }
                }
                Token::Word(s)
            }
            other => return Err(error(text, i, format!("unexpected `{other}`"))),
        };
        out.push((token, start));
    }
    Ok(out)
}

/// Parses a SQL filter expression.
///
/// SQL filter expressions to [`Predicate`]s ([`parse_filter`]): comparisons
/// `= != <> < <= > >=` of a column with a literal (either side), `[NOT] IN (...)`,
/// `IS [NOT] NULL`, `AND`, `OR`, `NOT` and parentheses, with SQL's precedence (`NOT` binds
/// tighter than `AND`, `AND` than `OR`). Keywords in any case; identifiers bare
/// (`a_b`, `a.b`) or in double quotes (`"my col"`, `""` for a quote): a dotted name is a
/// top-level column of that name if there is one, else a field inside structs (`s.a.b`) or
/// an object field of a Variant column (`v.a`); strings in single quotes
/// (`'it''s'`: dates and timestamps are strings too, converted to the column's type); numbers
/// bare: integers up to the u64 range, decimals and exponents (`1.5e+20`) as floats.
///
/// ```
/// use parq::read::parse_filter;
///
/// let p = parse_filter("ts >= '2020-01-31 08:00:00.25' AND \"my col\" NOT IN (1, 2)")?;
/// assert_eq!(p.columns(), ["ts", "my col"]);
/// # Ok::<(), parq::Error>(())
/// ```
pub fn parse_filter(text: &str) -> Result<Predicate> {
    let tokens = tokens(text)?;
    let mut p = Parser {
        text,
        tokens,
        pos: 0,
    };
    let e = p.or()?;
    if let Some((t, at)) = p.tokens.get(p.pos) {
        return Err(error(text, *at, format!("unexpected {}", describe(t))));
    }
    Ok(e)
}

fn describe(t: &Token) -> String {
    match t {
        Token::Ident(s) => format!("\"{s}\""),
        Token::Word(s) => format!("`{s}`"),
        Token::Str(s) => format!("'{s}'"),
        Token::Number(s) => format!("number {s}"),
        Token::Op(_) => "comparison".to_string(),
        Token::LParen => "`(`".to_string(),
        Token::RParen => "`)`".to_string(),
        Token::Comma => "`,`".to_string(),
    }
}

struct Parser<'t> {
    text: &'t str,
    tokens: Vec<(Token, usize)>,
    pos: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos).map(|(t, _)| t)
    }

    /// The position of the next token (the text's end after the last).
    fn at(&self) -> usize {
        self.tokens
            .get(self.pos)
            .map_or(self.text.chars().count(), |(_, a)| *a)
    }

    fn fail<T>(&self, what: &str) -> Result<T> {
        let found = match self.peek() {
            Some(t) => describe(t),
            None => "the end".to_string(),
        };
        Err(error(
            self.text,
            self.at(),
            format!("expected {what}, found {found}"),
        ))
    }

    fn keyword(&mut self, k: &str) -> bool {
        match self.peek() {
            Some(Token::Word(w)) if w.eq_ignore_ascii_case(k) => {
                self.pos += 1;
                true
            }
            _ => false,
        }
    }

    fn expect(&mut self, t: &Token, what: &str) -> Result<()> {
        if self.peek() == Some(t) {
            self.pos += 1;
            Ok(())
        } else {
            self.fail(what)
        }
    }

    fn or(&mut self) -> Result<Predicate> {
        let mut e = self.and()?;
        while self.keyword("OR") {
            e = e.or(self.and()?);
        }
        Ok(e)
    }

    fn and(&mut self) -> Result<Predicate> {
        let mut e = self.not()?;
        while self.keyword("AND") {
            e = e.and(self.not()?);
        }
        Ok(e)
    }

    fn not(&mut self) -> Result<Predicate> {
        if self.keyword("NOT") {
            return Ok(self.not()?.not());
        }
        if self.peek() == Some(&Token::LParen) {
            self.pos += 1;
            let e = self.or()?;
            self.expect(&Token::RParen, "`)`")?;
            return Ok(e);
        }
        self.comparison()
    }

    /// A column name, when the next token is one.
    fn ident(&mut self) -> Option<String> {
        let name = match self.peek()? {
            Token::Ident(s) => s.clone(),
            Token::Word(w) if !is_keyword(w) => w.clone(),
            _ => return None,
        };
        self.pos += 1;
        Some(name)
    }

    /// `name(` next: a function call.
    fn call(&mut self, name: &str) -> bool {
        let is_name = matches!(self.peek(), Some(Token::Word(w)) if w.eq_ignore_ascii_case(name));
        if is_name && self.tokens.get(self.pos + 1).map(|t| &t.0) == Some(&Token::LParen) {
            self.pos += 2;
            return true;
        }
        false
    }

    /// A number literal as a float.
    fn float(&mut self) -> Result<f64> {
        match self.literal()? {
            Literal::Int(v) => Ok(v as f64),
            Literal::UInt(v) => Ok(v as f64),
            Literal::Float(v) => Ok(v),
            _ => self.fail("a number"),
        }
    }

    /// `ST_Intersects(column, ST_MakeEnvelope(xmin, ymin, xmax, ymax))`, its name consumed.
    fn intersects(&mut self) -> Result<Predicate> {
        let Some(column) = self.ident() else {
            return self.fail("a column");
        };
        self.expect(&Token::Comma, "`,`")?;
        if !self.call("ST_MakeEnvelope") {
            return self.fail("ST_MakeEnvelope(");
        }
        let mut rect = [0.0; 4];
        for (i, v) in rect.iter_mut().enumerate() {
            if i > 0 {
                self.expect(&Token::Comma, "`,`")?;
            }
            *v = self.float()?;
        }
        self.expect(&Token::RParen, "`)`")?;
        self.expect(&Token::RParen, "`)`")?;
        Ok(Predicate::IntersectsBbox { column, rect })
    }

    fn comparison(&mut self) -> Result<Predicate> {
        if self.call("ST_Intersects") {
            return self.intersects();
        }
        if let Some(column) = self.ident() {
            if self.keyword("IS") {
                let negated = self.keyword("NOT");
                if !self.keyword("NULL") {
                    return self.fail("NULL");
                }
                return Ok(Predicate::IsNull { column, negated });
            }
            let negated = self.keyword("NOT");
            if self.keyword("IN") {
                self.expect(&Token::LParen, "`(`")?;
                let mut values = vec![self.literal()?];
                while self.peek() == Some(&Token::Comma) {
                    self.pos += 1;
                    values.push(self.literal()?);
                }
                self.expect(&Token::RParen, "`)` or `,`")?;
                return Ok(Predicate::In {
                    column,
                    values,
                    negated,
                });
            }
            if negated {
                return self.fail("IN");
            }
            let Some(Token::Op(op)) = self.peek().cloned() else {
                return self.fail("a comparison, IN or IS");
            };
            self.pos += 1;
            let value = self.literal()?;
            return Ok(Predicate::Compare { column, op, value });
        }
        // A literal first: `5 < x` is `x > 5`.
        let value = self.literal()?;
        let Some(Token::Op(op)) = self.peek().cloned() else {
            return self.fail("a comparison");
        };
        self.pos += 1;
        let Some(column) = self.ident() else {
            return self.fail("a column");
        };
        let op = match op {
            CmpOp::Lt => CmpOp::Gt,
            CmpOp::LtEq => CmpOp::GtEq,
            CmpOp::Gt => CmpOp::Lt,
            CmpOp::GtEq => CmpOp::LtEq,
            other => other,
        };
        Ok(Predicate::Compare { column, op, value })
    }

    fn literal(&mut self) -> Result<Literal> {
        let at = self.at();
        let lit = match self.peek().cloned() {
            Some(Token::Str(s)) => Literal::Str(s),
            Some(Token::Number(n)) => {
                number(&n).ok_or_else(|| error(self.text, at, format!("`{n}` is not a number")))?
            }
            Some(Token::Word(w)) if w.eq_ignore_ascii_case("NULL") => Literal::Null,
            Some(Token::Word(w)) if w.eq_ignore_ascii_case("TRUE") => Literal::Bool(true),
            Some(Token::Word(w)) if w.eq_ignore_ascii_case("FALSE") => Literal::Bool(false),
            _ => return self.fail("a literal"),
        };
        self.pos += 1;
        Ok(lit)
    }
}

fn is_keyword(w: &str) -> bool {
    ["AND", "OR", "NOT", "IN", "IS", "NULL", "TRUE", "FALSE"]
        .iter()
        .any(|k| w.eq_ignore_ascii_case(k))
}

/// A number's literal: an integer when it has neither fraction nor exponent (i64, else
/// u64), else a float.
fn number(n: &str) -> Option<Literal> {
    let integral = !n.contains(['.', 'e', 'E']);
    if integral {
        let digits = n.strip_prefix('+').unwrap_or(n);
        if let Ok(v) = digits.parse::<i64>() {
            return Some(Literal::Int(v));
        }
        if let Ok(v) = digits.parse::<u64>() {
            return Some(Literal::UInt(v));
        }
        return None;
    }
    n.parse::<f64>()
        .ok()
        .filter(|f| f.is_finite())
        .map(Literal::Float)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::filter::predicate::col;

    #[test]
    fn parses_the_grammar() {
        let p = parse_filter("a = 1 OR NOT b < -2.5e+3 AND c IS NOT NULL").unwrap();
        let want = col("a")
            .eq(1)
            .or(col("b").lt(-2500.0).not().and(col("c").is_not_null()));
        assert_eq!(p, want);
        let p = parse_filter("(\"my col\" in ('it''s', NULL)) and x not in (18446744073709551615)")
            .unwrap();
        let want = col("my col")
            .is_in([Literal::Str("it's".into()), Literal::Null])
            .and(Predicate::In {
                column: "x".into(),
                values: vec![Literal::UInt(u64::MAX)],
                negated: true,
            });
        assert_eq!(p, want);
        assert_eq!(parse_filter("5 <= x").unwrap(), col("x").gt_eq(5));
        assert_eq!(parse_filter("x <> TRUE").unwrap(), col("x").not_eq(true));
        assert_eq!(parse_filter("s.t IS NULL").unwrap(), col("s.t").is_null());
    }

    #[test]
    fn errors_say_where() {
        for (text, want) in [
            ("a = ", "expected a literal, found the end at character 5"),
            ("a = 'x", "unterminated '"),
            ("(a = 1", "expected `)`"),
            ("a == 1", "expected a literal"),
            ("a = 1 b", "unexpected `b` at character 7"),
            ("a ! 1", "`!` without `=`"),
            ("a NOT 1", "expected IN"),
            ("a = 1e999", "is not a number"),
            ("a = 99999999999999999999", "is not a number"),
            ("a IS 1", "expected NULL"),
            ("a in ()", "expected a literal"),
        ] {
            let e = parse_filter(text).unwrap_err().to_string();
            assert!(e.contains(want), "{text}: {e}");
        }
    }
}
