//! parq's cells: every call into parq's footer API lives here, so only this module changes
//! when that API moves.
//!
//! Placeholder until `parq::format::footer` lands: no parq cells are produced yet.

use anyhow::Result;

use crate::datasets::LoadedFile;
use crate::measure::Case;
use crate::workload::Mode;

/// Why parq cells are missing, if they are.
pub const UNAVAILABLE: Option<&str> = Some("parq's footer API (parq::format::footer) has not landed yet");

/// parq cases for the requested modes.
pub fn cases<'a>(_file: &'a LoadedFile, _modes: &[Mode]) -> Result<Vec<Case<'a>>> {
    Ok(Vec::new())
}
