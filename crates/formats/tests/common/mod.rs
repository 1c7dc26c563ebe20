//! What several test files share.

use std::path::PathBuf;

/// The folder of `../shared/formats` holding the real files of `format`, or `None` where the
/// corpus is missing outside CI (CI runs on a clean clone beside `shared/`: there a missing
/// corpus is a failure, not a skip).
pub fn shared_formats_folder(format: &str) -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/formats")
        .join(format);
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "the foreign-format corpus {} is missing",
        dir.display()
    );
    eprintln!("skipped: {} is missing (outside CI)", dir.display());
    None
}
