//! Reading inputs and writing outputs safely: stdin/stdout, directory walks, atomic replacement
//! and backups.
//!
//! Every file msgflow writes goes through [`write_atomically`]: the new content is written to a
//! temporary file in the target's directory, flushed to disk, then renamed over the target, so a
//! reader (or a crash) sees either the old file or the new one, never a half-written or empty one.

use std::ffi::OsString;
use std::fs::{self, Permissions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

/// Reads all of stdin.
pub fn read_stdin(limit: Option<u64>) -> io::Result<Vec<u8>> {
    read_limited(io::stdin().lock(), limit, 0)
}

/// Reads a file, refusing one larger than `limit` bytes before reading it.
pub fn read_file(path: &Path, limit: Option<u64>) -> io::Result<Vec<u8>> {
    let file = fs::File::open(path)?;
    let size = file.metadata()?.len();
    if let Some(limit) = limit {
        if size > limit {
            return Err(too_large(limit));
        }
    }
    // The buffer is sized once (a `take` reader would otherwise grow it by doubling); one
    // byte more lets the read see the end without growing it.
    read_limited(
        file,
        limit,
        usize::try_from(size).map_or(0, |size| size.saturating_add(1)),
    )
}

/// Reads to the end, but no more than `limit` bytes (a file can grow while it is read).
fn read_limited(reader: impl Read, limit: Option<u64>, capacity: usize) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    // Only a hint: a failed reservation leaves the buffer to grow as it reads.
    let _ = bytes.try_reserve_exact(capacity);
    match limit {
        Some(limit) => {
            reader.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
            if bytes.len() as u64 > limit {
                return Err(too_large(limit));
            }
        }
        None => {
            let mut reader = reader;
            reader.read_to_end(&mut bytes)?;
        }
    }
    Ok(bytes)
}

fn too_large(limit: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("the input is larger than --max-input-bytes ({limit} bytes)"),
    )
}

/// Writes `bytes` to stdout. A closed pipe (`msgflow show x | head`) is not an error.
pub fn write_stdout(bytes: &[u8]) -> io::Result<()> {
    write_stdout_with(|out| out.write_all(bytes))
}

/// Writes to stdout with `write`; a closed pipe (`| head`) is not an error.
pub fn write_stdout_with(write: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> io::Result<()> {
    let mut stdout = io::stdout().lock();
    match write(&mut stdout).and_then(|()| stdout.flush()) {
        Err(err) if err.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// `FILE.bak`: where `--backup` keeps the original of `path`.
pub fn backup_path(path: &Path) -> PathBuf {
    let mut name: OsString = path.file_name().map(OsString::from).unwrap_or_default();
    name.push(".bak");
    path.with_file_name(name)
}

/// Replaces `target` with `bytes` atomically (temporary file in the same directory, write, fsync,
/// rename). `permissions` are applied to the new file; `None` keeps those of an existing target,
/// or gives a new file the usual `rw-r--r--`.
pub fn write_atomically(target: &Path, bytes: &[u8], permissions: Option<Permissions>) -> io::Result<()> {
    write_atomically_with(target, permissions, |file| file.write_all(bytes))
}

/// [`write_atomically`] with the content produced by `write` (streamed into the temporary file).
pub fn write_atomically_with(
    target: &Path,
    permissions: Option<Permissions>,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    write_atomically_to(target, permissions, |file| write(file))
}

/// [`write_atomically`] with the content written by `write` into the temporary file itself (a
/// corpus writer takes a handle of its own with `try_clone`); `write`'s value is returned once
/// the file is in place.
pub fn write_atomically_to<T>(
    target: &Path,
    permissions: Option<Permissions>,
    write: impl FnOnce(&mut fs::File) -> io::Result<T>,
) -> io::Result<T> {
    let directory = parent_directory(target);
    let name = target
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    // A leading dot and a non-.json suffix keep half-written files out of directory scans.
    let mut temporary = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".msgflow-tmp")
        .tempfile_in(directory)?;
    let written = write(temporary.as_file_mut())?;
    let permissions = match permissions {
        Some(permissions) => Some(permissions),
        None => match fs::metadata(target) {
            Ok(metadata) => Some(metadata.permissions()),
            Err(_) => default_permissions(),
        },
    };
    if let Some(permissions) = permissions {
        temporary.as_file().set_permissions(permissions)?;
    }
    temporary.as_file().sync_all()?;
    // On failure the temporary file is dropped, which deletes it; the target is untouched.
    temporary.persist(target).map_err(|err| err.error)?;
    sync_directory(directory);
    Ok(written)
}

/// Rewrites the file at `path` (whose current content is `original`) with `bytes`, atomically.
/// With `backup`, `FILE.bak` receives `original` first; if that fails, `path` is not touched.
/// Symlinks are followed, so the file they point to is rewritten and the link stays a link.
pub fn replace_in_place(path: &Path, original: &[u8], bytes: &[u8], backup: bool) -> Result<(), (PathBuf, io::Error)> {
    let target = fs::canonicalize(path).map_err(|err| (path.to_path_buf(), err))?;
    let permissions = fs::metadata(&target).map(|metadata| metadata.permissions()).ok();
    if backup {
        let backup = backup_path(&target);
        write_atomically(&backup, original, permissions.clone()).map_err(|err| (backup, err))?;
    }
    write_atomically(&target, bytes, permissions).map_err(|err| (target.clone(), err))
}

/// The `*.json` files under `directory` (subdirectories only when `recursive`), sorted by path.
/// Symlinked directories are not followed (they could form cycles); symlinked files are read.
pub fn json_files_in(directory: &Path, recursive: bool) -> io::Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut pending = vec![directory.to_path_buf()];
    while let Some(current) = pending.pop() {
        for entry in fs::read_dir(&current)? {
            let entry = entry?;
            let path = entry.path();
            let file_type = entry.file_type()?;
            if file_type.is_dir() {
                if recursive {
                    pending.push(path);
                }
            } else if is_json_name(&path) && path.is_file() {
                found.push(path);
            }
        }
    }
    found.sort();
    Ok(found)
}

fn is_json_name(path: &Path) -> bool {
    let hidden = path
        .file_name()
        .is_some_and(|name| name.to_string_lossy().starts_with('.'));
    !hidden
        && path
            .extension()
            .is_some_and(|extension| extension.eq_ignore_ascii_case("json"))
}

fn parent_directory(path: &Path) -> &Path {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    }
}

#[cfg(unix)]
fn default_permissions() -> Option<Permissions> {
    use std::os::unix::fs::PermissionsExt;
    Some(Permissions::from_mode(0o644))
}

#[cfg(not(unix))]
fn default_permissions() -> Option<Permissions> {
    None
}

/// Makes the rename durable. Best effort: some platforms and file systems cannot sync a
/// directory, and the data itself is already on disk.
fn sync_directory(directory: &Path) {
    #[cfg(unix)]
    if let Ok(handle) = fs::File::open(directory) {
        let _ = handle.sync_all();
    }
    #[cfg(not(unix))]
    let _ = directory;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_content_and_leaves_no_temporary_file() -> io::Result<()> {
        let dir = tempfile::tempdir()?;
        let target = dir.path().join("a.json");
        fs::write(&target, b"old")?;
        write_atomically(&target, b"new", None)?;
        assert_eq!(fs::read(&target)?, b"new");
        assert_eq!(fs::read_dir(dir.path())?.count(), 1);
        Ok(())
    }

    #[test]
    fn failed_backup_leaves_the_original_alone() -> io::Result<()> {
        let dir = tempfile::tempdir()?;
        let target = dir.path().join("a.json");
        fs::write(&target, b"old")?;
        // A directory where the backup should go makes the backup's rename fail.
        fs::create_dir(dir.path().join("a.json.bak"))?;
        let result = replace_in_place(&target, b"old", b"new", true);
        assert!(result.is_err());
        assert_eq!(fs::read(&target)?, b"old");
        Ok(())
    }

    #[test]
    fn directory_scan_finds_json_files_sorted() -> io::Result<()> {
        let dir = tempfile::tempdir()?;
        fs::create_dir(dir.path().join("sub"))?;
        for name in ["b.json", "a.JSON", "c.txt", ".hidden.json", "sub/d.json"] {
            fs::write(dir.path().join(name), b"[]")?;
        }
        let names = |files: Vec<PathBuf>| -> Vec<String> {
            files
                .iter()
                .filter_map(|f| f.strip_prefix(dir.path()).ok())
                .map(|f| f.display().to_string())
                .collect()
        };
        assert_eq!(names(json_files_in(dir.path(), false)?), ["a.JSON", "b.json"]);
        assert_eq!(
            names(json_files_in(dir.path(), true)?),
            ["a.JSON", "b.json", "sub/d.json"]
        );
        Ok(())
    }

    #[test]
    fn backup_goes_beside_the_file() {
        assert_eq!(backup_path(Path::new("x/h.json")), PathBuf::from("x/h.json.bak"));
    }
}
