//! Export of run artifacts, confined to an export root.

use oceansim_protocol::ProtocolError;
use serde::Serialize;
use std::io::Write;
use std::path::{Component, Path, PathBuf};

/// Resolves a client-given relative path under `root`; absolute paths and
/// `..` are refused so a client can never write outside the root.
pub fn confine(root: &Path, rel: &str) -> Result<PathBuf, ProtocolError> {
    let p = Path::new(rel);
    if rel.is_empty()
        || p.is_absolute()
        || p.components()
            .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
    {
        return Err(ProtocolError::InvalidMessage(format!(
            "path `{rel}` must be relative to the export root, without `..`"
        )));
    }
    Ok(root.join(p))
}

fn io_err(path: &Path, e: std::io::Error) -> ProtocolError {
    ProtocolError::InvalidMessage(format!("cannot write {}: {e}", path.display()))
}

/// Writes `value` as pretty JSON to `path`, creating parents.
pub fn write_json<T: Serialize + ?Sized>(path: &Path, value: &T) -> Result<u64, ProtocolError> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| io_err(dir, e))?;
    }
    let text = serde_json::to_string_pretty(value).unwrap_or_default();
    std::fs::write(path, &text).map_err(|e| io_err(path, e))?;
    Ok(text.len() as u64)
}

/// Writes lines of text.
pub fn write_lines(path: &Path, lines: impl Iterator<Item = String>) -> Result<u64, ProtocolError> {
    let file = std::fs::File::create(path).map_err(|e| io_err(path, e))?;
    let mut w = std::io::BufWriter::new(file);
    let mut n = 0;
    for l in lines {
        n += l.len() as u64 + 1;
        writeln!(w, "{l}").map_err(|e| io_err(path, e))?;
    }
    w.flush().map_err(|e| io_err(path, e))?;
    Ok(n)
}

/// An SVG of a trajectory (user frame, x east, y north) over the map.
pub fn trajectory_svg(
    points: &[[f64; 2]],
    bounds: [f64; 4],
    obstacles: &[([f64; 2], f64)],
) -> String {
    let [x0, x1, y0, y1] = bounds;
    let (w, h) = (600.0, 600.0 * (y1 - y0) / (x1 - x0).max(1e-9));
    let sx = |x: f64| (x - x0) / (x1 - x0) * w;
    let sy = |y: f64| h - (y - y0) / (y1 - y0) * h;
    let mut s = format!("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w:.0}\" height=\"{h:.0}\" viewBox=\"0 0 {w:.0} {h:.0}\">\n<rect width=\"100%\" height=\"100%\" fill=\"#0b2a3c\"/>\n");
    for (c, r) in obstacles {
        s += &format!(
            "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"{:.1}\" fill=\"#7f8c8d\"/>\n",
            sx(c[0]),
            sy(c[1]),
            r / (x1 - x0) * w
        );
    }
    let pts: Vec<String> = points
        .iter()
        .map(|p| format!("{:.1},{:.1}", sx(p[0]), sy(p[1])))
        .collect();
    s += &format!(
        "<polyline fill=\"none\" stroke=\"#f1c40f\" stroke-width=\"2\" points=\"{}\"/>\n",
        pts.join(" ")
    );
    if let Some(p) = points.last() {
        s += &format!(
            "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"5\" fill=\"#e74c3c\"/>\n",
            sx(p[0]),
            sy(p[1])
        );
    }
    s += "<text x=\"8\" y=\"18\" fill=\"white\" font-family=\"sans-serif\" font-size=\"14\">AUV trajectory (x east, y north)</text>\n</svg>\n";
    s
}

/// Packs the files of `dir` (not recursive) into a stored zip at `out`.
pub fn pack_dir(dir: &Path, out: &Path) -> Result<u64, ProtocolError> {
    let file = std::fs::File::create(out).map_err(|e| io_err(out, e))?;
    let mut zip = zip::ZipWriter::new(file);
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Stored)
        .large_file(true);
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| io_err(dir, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    entries.sort();
    for p in entries {
        let name = p
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("file")
            .to_owned();
        zip.start_file(name, opts)
            .map_err(|e| ProtocolError::InvalidMessage(format!("zip: {e}")))?;
        let bytes = std::fs::read(&p).map_err(|e| io_err(&p, e))?;
        zip.write_all(&bytes).map_err(|e| io_err(out, e))?;
    }
    zip.finish()
        .map_err(|e| ProtocolError::InvalidMessage(format!("zip: {e}")))?;
    Ok(std::fs::metadata(out).map(|m| m.len()).unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_confined_to_the_root() {
        let root = Path::new("/tmp/root");
        assert_eq!(
            confine(root, "runs/a").unwrap(),
            Path::new("/tmp/root/runs/a")
        );
        assert!(confine(root, "../etc").is_err());
        assert!(confine(root, "a/../../b").is_err());
        assert!(confine(root, "/etc/passwd").is_err());
        assert!(confine(root, "").is_err());
    }
}
