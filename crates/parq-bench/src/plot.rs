//! PNG charts like the seed's figures: on top, grouped bars of the median decode time per
//! dataset and implementation (log scale, Figure 1); below, parq's speedup over each peer by
//! column count (Figure 2). Text is drawn with an embedded DejaVu Sans, so no system font
//! library is needed.

use std::path::Path;

use anyhow::{anyhow, Result};
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::report::{Cell, Results};
use crate::workload::{Mode, PARQ, PARQUET_56, PARQUET_60, PYARROW};

const FONT: &str = "sans-serif";
// plotters' ab_glyph text rounds glyph offsets; below ~20 px the spacing visibly wobbles.
const LABEL_SIZE: u32 = 20;
const CAPTION_SIZE: u32 = 30;

/// The bars of Figure 1, in drawing order.
const BARS: [(&str, Mode, &str); 8] = [
    (PARQUET_56, Mode::Metadata, "parquet 56.2.0"),
    (PARQUET_60, Mode::Metadata, "parquet 60.1.0"),
    (
        PARQUET_60,
        Mode::MetadataNoStats,
        "parquet 60.1.0 (no stats)",
    ),
    (PYARROW, Mode::Metadata, "pyarrow"),
    (PARQ, Mode::Metadata, "parq"),
    (PARQ, Mode::MetadataNoStats, "parq (no stats)"),
    (PARQ, Mode::Projection10, "parq (10 columns)"),
    (PARQ, Mode::LazyOpen, "parq (lazy open)"),
];

/// The lines of Figure 2: parq's mode against a peer.
const SPEEDUPS: [(&str, Mode, &str); 4] = [
    (PARQUET_56, Mode::Metadata, "parq vs 56.2.0"),
    (PARQUET_60, Mode::Metadata, "parq vs 60.1.0"),
    (
        PARQUET_60,
        Mode::MetadataNoStats,
        "parq vs 60.1.0, both no stats",
    ),
    (PYARROW, Mode::Metadata, "parq vs pyarrow"),
];

/// Draws both figures into one PNG at `path`.
pub fn draw(cells: &[Cell], path: &Path) -> Result<()> {
    plotters::style::register_font(FONT, FontStyle::Normal, dejavu::sans::regular())
        .map_err(|_| anyhow!("cannot load the embedded font"))?;
    let results = Results::new(cells);
    let root = BitMapBackend::new(path, (1600, 1500)).into_drawing_area();
    root.fill(&WHITE)?;
    let (top, bottom) = root.split_vertically(800);
    draw_times(&top, &results)?;
    draw_speedups(&bottom, &results)?;
    root.present()
        .map_err(|e| anyhow!("cannot write {}: {e}", path.display()))?;
    Ok(())
}

fn short_label(cell: &Cell) -> String {
    match cell.columns {
        c if c >= 1000 && c % 1000 == 0 => format!("{} {}k", cell.ty, c / 1000),
        c => format!("{} {c}", cell.ty),
    }
}

fn draw_times(area: &DrawingArea<BitMapBackend<'_>, Shift>, r: &Results<'_>) -> Result<()> {
    let bars: Vec<_> = BARS
        .iter()
        .filter(|(i, m, _)| r.datasets().iter().any(|d| r.get(d, i, *m).is_some()))
        .collect();
    let datasets = r.datasets();
    let ms_of = |d: &str, i: &str, m: Mode| r.get(d, i, m).map(|c| c.stats.median_ns as f64 / 1e6);
    let values: Vec<f64> = datasets
        .iter()
        .flat_map(|d| bars.iter().filter_map(move |(i, m, _)| ms_of(d, i, *m)))
        .collect();
    if values.is_empty() {
        return Ok(());
    }
    let lo = values.iter().copied().fold(f64::MAX, f64::min) / 2.0;
    let hi = values.iter().copied().fold(0.0, f64::max) * 3.0;
    let slots = bars.len() + 1;
    let total = (datasets.len() * slots) as i32;
    let labels: Vec<String> = datasets
        .iter()
        .map(|d| r.first(d).map_or(d.to_string(), short_label))
        .collect();

    let mut chart = ChartBuilder::on(area)
        .caption(
            "Footer decode time (median, log scale; lower is better)",
            (FONT, CAPTION_SIZE),
        )
        .margin(20)
        .x_label_area_size(50)
        .y_label_area_size(100)
        .build_cartesian_2d((0..total).into_segmented(), (lo..hi).log_scale())?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(total as usize + 1)
        .x_label_formatter(&|v| match v {
            SegmentValue::CenterOf(s) if *s as usize % slots == bars.len() / 2 => {
                labels.get(*s as usize / slots).cloned().unwrap_or_default()
            }
            _ => String::new(),
        })
        .y_desc("milliseconds")
        .y_label_formatter(&|v| fmt_axis(*v))
        .label_style((FONT, LABEL_SIZE))
        .draw()?;
    for (b, (imp, mode, label)) in bars.iter().enumerate() {
        let color = Palette99::pick(b).to_rgba();
        chart
            .draw_series(datasets.iter().enumerate().filter_map(|(d, name)| {
                let ms = ms_of(name, imp, *mode)?;
                let x = (d * slots + b) as i32;
                Some(Rectangle::new(
                    [
                        (SegmentValue::Exact(x), lo),
                        (SegmentValue::Exact(x + 1), ms),
                    ],
                    color.filled(),
                ))
            }))?
            .label(*label)
            .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 12, y + 6)], color.filled()));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .label_font((FONT, LABEL_SIZE))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()?;
    Ok(())
}

/// One line of Figure 2.
struct Line {
    label: String,
    /// Palette index (one per comparison).
    color: usize,
    /// Triangle markers (String datasets) instead of circles (Float).
    triangles: bool,
    /// (columns, speedup), by column count.
    points: Vec<(f64, f64)>,
}

fn draw_speedups(area: &DrawingArea<BitMapBackend<'_>, Shift>, r: &Results<'_>) -> Result<()> {
    // One line per (column type, comparison), points ordered by column count.
    let mut lines: Vec<Line> = Vec::new();
    for (k, (peer, mode, label)) in SPEEDUPS.iter().enumerate() {
        for ty in ["Float", "String"] {
            let mut points: Vec<(f64, f64)> = r
                .datasets()
                .iter()
                .filter_map(|d| {
                    let cell = r.first(d)?;
                    let s = r.get(d, peer, *mode).and(r.speedup(d, peer, *mode))?;
                    (cell.ty == ty).then_some((cell.columns as f64, s))
                })
                .collect();
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            if !points.is_empty() {
                lines.push(Line {
                    label: format!("{ty}: {label}"),
                    color: k,
                    triangles: ty == "String",
                    points,
                });
            }
        }
    }
    if lines.is_empty() {
        return Ok(());
    }
    let all = lines.iter().flat_map(|l| l.points.iter());
    let (x_lo, x_hi, y_hi) = all.fold((f64::MAX, 0.0f64, 1.0f64), |(a, b, c), p| {
        (a.min(p.0), b.max(p.0), c.max(p.1))
    });
    let mut chart = ChartBuilder::on(area)
        .caption(
            "Speedup of parq's full footer decode by column count (higher is better)",
            (FONT, CAPTION_SIZE),
        )
        .margin(20)
        .x_label_area_size(50)
        .y_label_area_size(100)
        // Headroom above the lines for the legend.
        .build_cartesian_2d((x_lo / 2.0..x_hi * 2.0).log_scale(), 0.0..y_hi * 1.7)?;
    chart
        .configure_mesh()
        .x_desc("columns (20 row groups)")
        .y_desc("speedup (x)")
        .x_label_formatter(&|v| fmt_decade(*v))
        .label_style((FONT, LABEL_SIZE))
        .draw()?;
    chart.draw_series(LineSeries::new(
        [(x_lo / 2.0, 1.0), (x_hi * 2.0, 1.0)],
        BLACK.mix(0.4),
    ))?;
    for Line {
        label,
        color,
        triangles,
        points,
    } in lines
    {
        let color = Palette99::pick(color).to_rgba();
        let style = color.stroke_width(2);
        let line =
            move |at: (i32, i32)| EmptyElement::at(at) + PathElement::new([(0, 0), (20, 0)], style);
        // String: dashed line and triangles; Float: solid line and circles.
        if triangles {
            chart
                .draw_series(DashedLineSeries::new(points.iter().copied(), 10, 6, style))?
                .label(label)
                .legend(move |at| line(at) + TriangleMarker::new((10, 0), 6, color.filled()));
            chart.draw_series(
                points
                    .iter()
                    .map(|&p| TriangleMarker::new(p, 7, color.filled())),
            )?;
        } else {
            chart
                .draw_series(LineSeries::new(points.iter().copied(), style))?
                .label(label)
                .legend(move |at| line(at) + Circle::new((10, 0), 5, color.filled()));
            chart.draw_series(points.iter().map(|&p| Circle::new(p, 5, color.filled())))?;
        }
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .label_font((FONT, LABEL_SIZE))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()?;
    Ok(())
}

/// Powers of ten only ("100", "1000"); the log axis' other key points stay unlabelled.
fn fmt_decade(v: f64) -> String {
    let exp = v.log10();
    if (exp - exp.round()).abs() < 1e-9 {
        format!("{v:.0}")
    } else {
        String::new()
    }
}

/// An axis value with about two significant digits and no float noise ("0.4", "0.0012").
fn fmt_axis(v: f64) -> String {
    if v <= 0.0 || v >= 100.0 {
        return format!("{v:.0}");
    }
    let decimals = (1 - v.log10().floor() as i32).max(0) as usize;
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::fmt_axis;

    #[test]
    fn axis_values() {
        assert_eq!(fmt_axis(0.4), "0.4");
        assert_eq!(fmt_axis(0.00040000000001), "0.0004");
        assert_eq!(fmt_axis(2.0), "2");
        assert_eq!(fmt_axis(20.0), "20");
        assert_eq!(fmt_axis(1000.0), "1000");
        assert_eq!(fmt_axis(0.25), "0.25");
    }
}
