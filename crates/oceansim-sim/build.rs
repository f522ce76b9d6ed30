//! Stamps the git revision the simulator was built from into exported
//! metadata (`software.git_revision`): `OCEANSIM_GIT_REVISION` when set,
//! else `git rev-parse` of the checkout, else "unknown" (a packaged crate).

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=OCEANSIM_GIT_REVISION");
    if std::env::var_os("OCEANSIM_GIT_REVISION").is_some() {
        return;
    }
    let here = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let Some(git_dir) = here
        .ancestors()
        .map(|d| d.join(".git"))
        .find(|g| g.exists())
    else {
        return;
    };
    watch(&git_dir);
    let rev = Command::new("git")
        .arg("-C")
        .arg(&here)
        .args(["rev-parse", "--short=12", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty() && s.chars().all(|c| c.is_ascii_hexdigit()));
    if let Some(rev) = rev {
        println!("cargo:rustc-env=OCEANSIM_GIT_REVISION={rev}");
    }
}

/// Rebuilds when HEAD moves: HEAD itself, the branch it names, packed refs
/// (only files that exist: a missing one would rerun this every build).
fn watch(git_dir: &Path) {
    let head = git_dir.join("HEAD");
    let mut files = vec![head.clone(), git_dir.join("packed-refs")];
    if let Ok(text) = std::fs::read_to_string(&head) {
        if let Some(r) = text.trim().strip_prefix("ref: ") {
            files.push(git_dir.join(r));
        }
    }
    for f in files.iter().filter(|f| f.is_file()) {
        println!("cargo:rerun-if-changed={}", f.display());
    }
}
