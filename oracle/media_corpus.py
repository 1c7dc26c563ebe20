#!/usr/bin/env python3
"""Generate the media-type corpus for ``conformance.py media`` (stdlib only, deterministic).

Usage:
    python3 oracle/media_corpus.py --out target/media-corpus.json

The corpus is a JSON array of ``{"kind", "value", "media_type", "identifier"}`` items, where ``kind`` is one of
``image-url``, ``audio-url``, ``video-url``, ``document-url``, ``uploaded-file``, ``binary`` or ``guess`` and ``value``
is a URL, a file id, base64 data or (for ``guess``) a path. It covers: every extension of the 169-entry baseline
table in every URL kind, upper and mixed case, double extensions, the
suffix/encoding maps (.tar.gz, .tgz, .taz, .tz, .tbz2, .txz, .svgz, .gz, .Z vs .z, .bz2, .xz, .br), query strings
and fragments (which Python 3.11 does not strip), YouTube hosts and near-misses, data: URIs, no extension,
directory-looking paths, unknown extensions, uploaded-file ids with paths/schemes/queries, explicit media types and
identifiers (including the empty-string fallback), and base64 variants for binary items.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

# The baseline table: Python 3.11 defaults plus pydantic-ai overrides (strict table).
BASELINE_EXTENSIONS = (
    ".3g2 .3gp .3gpp .3gpp2 .a .aac .adts .ai .aif .aifc .aiff .asciidoc .ass .au .avi .avif .bat .bcpio .bin .bmp "
    ".c .cdf .cpio .csh .css .csv .dll .doc .docx .dot .dvi .eml .eps .etx .exe .flac .flv .gif .gtar .h .h5 .hdf "
    ".heic .heif .htm .html .ico .ief .jpe .jpeg .jpg .js .json .ksh .latex .loas .m1v .m3u .m3u8 .man .md .mdx .me "
    ".mht .mhtml .mif .mjs .mkv .mov .movie .mp2 .mp3 .mp4 .mpa .mpe .mpeg .mpg .ms .n3 .nc .nq .nt .nws .o .obj .oda "
    ".odp .ods .odt .oga .opus .p12 .p7c .pbm .pdf .pfx .pgm .pl .png .pnm .pot .ppa .ppm .pps .ppt .pptx .ps .pwz .py "
    ".pyc .pyo .qt .ra .ram .ras .rdf .rgb .roff .rtf .rtx .sgm .sgml .sh .shar .snd .so .src .srt .sv4cpio .sv4crc "
    ".svg .swf .t .tar .tcl .tex .texi .texinfo .three_gp .tif .tiff .toml .tr .trig .tsv .txt .ustar .vcf .vtt "
    ".wasm .wav .webm .webmanifest .webp .wiz .wmv .wsdl .xbm .xlb .xls .xlsx .xml .xpdl .xpm .xsl .xwd .yaml .yml .zip"
).split()

# Extensions only a platform mime.types file (or Python 3.13) knows, plus made-up ones: all must infer nothing.
NOT_IN_BASELINE = [".m4a", ".markdown", ".rst", ".rs", ".ts", ".go", ".weird", ".PNGX", ".", ".tar.", ".jpg~"]

URL_KINDS = ["image-url", "audio-url", "video-url", "document-url"]
COMPRESSION_NAMES = [
    "a.tar.gz", "a.tgz", "a.TGZ", "a.taz", "a.tz", "a.tbz2", "a.txz", "a.svgz", "a.SVGZ", "a.svg.gz", "a.pdf.gz",
    "a.pdf.GZ", "a.tar.Z", "a.tar.z", "a.txt.bz2", "a.csv.xz", "a.json.br", "a.gz", "a.Z", "a.br", "a.tar.gz.gz",
    "a.png.zip", "a.zip.png", "a.tar.bz2", "a.tar.xz",
]
YOUTUBE_URLS = [
    "https://youtu.be/dQw4w9WgXcQ", "https://youtube.com/watch?v=x", "https://www.youtube.com/watch?v=x",
    "https://m.youtube.com/watch?v=x", "http://youtu.be/x", "https://YOUTU.BE/x", "https://www.YouTube.com/watch?v=x",
    "https://music.youtube.com/watch?v=x", "https://youtube.com.evil.example/v.png", "https://notyoutube.com/v",
    "https://www.youtube.com:443/watch?v=x", "https://user@youtu.be/x", "https://youtu.be", "youtu.be/x",
    "https://www.youtube.com/embed/x.png", "https://gaming.youtube.com/watch?v=x",
]
DATA_URIS = [
    "data:image/png;base64,iVBORw0KGgo=", "data:image/svg+xml,<svg/>", "data:text/plain;charset=utf-8,hi",
    "data:,hello", "data:application/pdf;name=a.pdf;base64,JVBERi0=", "data:image=png;base64,AA==",
    "data:noslash;base64,AA==", "data:IMAGE/PNG;base64,AA==", "data:;base64,AA==", "data:video/mp4,x",
]
ODD_URLS = [
    "https://example.com/", "https://example.com", "https://example.com/noext", "https://example.com/dir.png/",
    "https://example.com/dir.png/file", "https://example.com/dir.pdf/file.txt", "https://example.com/.png",
    "https://example.com/..png", "https://example.com/a..png", "https://example.com/a.png.", "/local/a.png",
    "relative/a.pdf", "a.png", "file:///tmp/a.wav", "ftp://host/a.mp3", "s3://bucket/a.mp4", "gs://bucket/a.pdf",
    "HTTPS://EXAMPLE.COM/A.PNG", "https://example.com/a%20b.png", "https://example.com/caf\u00e9.pdf",
    "https://example.com/a.png?", "https://example.com/a.png#", "https://example.com/a?x=b.png",
    "https://example.com/a#b.png", "https://example.com/a.png;params", "https://example.com/a.PnG",
    "https://example.com/path/to/archive.tar.gz?download=1", "", " ", "https://example.com/a.png ",
]
UPLOADED_IDS = [
    "file-abc123", "file_011CNha8iCJcU1wXNR6q4V8w", "files/abc", "files/report.pdf", "files/dir/photo.JPG",
    "https://generativelanguage.googleapis.com/v1beta/files/x.png", "gs://bucket/video.mp4", "s3://bucket/key.csv",
    "s3://bucket/key.csv?versionId=3", "projects/p/files/notes.md#frag", "file-1.tar.gz", "file-1.tgz", "", ".png",
    "dir.pdf/file", "file://localhost/etc/a.txt", "x.unknownext", "UPPER.PDF", "a.b.c.yaml",
]
BASE64_VALUES = [
    ("", "application/octet-stream"), ("-_8=", "image/png"), ("+/8=", "image/png"), ("-_8", "image/png"),
    ("AAE", "audio/wav"), ("AAE=", "audio/wav"), ("aGVsbG8=", "text/plain"), ("aGVsbG8", "text/plain"),
    ("A===", "image/png"), ("AAE==", "image/png"), ("A", "image/png"), ("AA E=", "image/png"), ("!!!!", "image/png"),
    ("iVBORw0KGgo=", None), ("JVBERi0xLjc=", "application/pdf"),
]


def item(kind: str, value: str, media_type: str | None = None, identifier: str | None = None) -> dict:
    return {"kind": kind, "value": value, "media_type": media_type, "identifier": identifier}


def extension_items() -> list[dict]:
    """Every baseline extension in every URL kind and path form, with case, query, fragment and double-ext variants."""
    items = []
    for ext in BASELINE_EXTENSIONS + NOT_IN_BASELINE:
        for kind in URL_KINDS:
            items.append(item(kind, f"https://example.com/files/name{ext}"))
        items.append(item("image-url", f"https://example.com/NAME{ext.upper()}"))
        items.append(item("document-url", f"https://example.com/Name{ext[:2].upper()}{ext[2:]}"))
        items.append(item("audio-url", f"https://example.com/name{ext}?sig=abc&x=1"))
        items.append(item("video-url", f"https://example.com/name{ext}#t=10"))
        items.append(item("document-url", f"https://example.com/name{ext}.gz"))
        items.append(item("image-url", f"https://example.com/name.backup{ext}"))
        items.append(item("uploaded-file", f"files/dir/name{ext}"))
        items.append(item("uploaded-file", f"gs://bucket/name{ext}?alt=media"))
        items.append(item("guess", f"/tmp/name{ext}"))
        items.append(item("guess", f"name{ext.upper()}"))
        items.append(item("guess", f"https://example.com/name{ext}"))
        items.append(item("guess", f"dir{ext}/file"))
    return items


def special_items() -> list[dict]:
    items = []
    for name in COMPRESSION_NAMES:
        for kind in URL_KINDS:
            items.append(item(kind, f"https://example.com/{name}"))
        items.append(item("uploaded-file", f"files/{name}"))
        items.append(item("guess", name))
    for url in YOUTUBE_URLS:
        for kind in URL_KINDS:
            items.append(item(kind, url))
    for url in DATA_URIS + ODD_URLS:
        for kind in URL_KINDS:
            items.append(item(kind, url))
        items.append(item("guess", url))
    for file_id in UPLOADED_IDS:
        items.append(item("uploaded-file", file_id))
        items.append(item("uploaded-file", file_id, media_type="application/pdf"))
    for kind in URL_KINDS + ["uploaded-file"]:
        items.append(item(kind, "https://example.com/noext", media_type="image/png"))
        items.append(item(kind, "https://example.com/a.png", media_type="application/pdf"))
        items.append(item(kind, "https://example.com/a.png", media_type=""))
        items.append(item(kind, "https://example.com/a.png", identifier="my-id"))
        items.append(item(kind, "https://example.com/a.png", identifier=""))
        items.append(item(kind, "https://example.com/caf\u00e9-\U0001f600.png"))
    for data, media_type in BASE64_VALUES:
        items.append(item("binary", data, media_type=media_type))
        items.append(item("binary", data, media_type=media_type, identifier="bin-id"))
    items.append(item("bogus-kind", "x"))
    return items


def build_corpus() -> list[dict]:
    return extension_items() + special_items()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True, type=Path, help="corpus JSON file to write")
    args = parser.parse_args(argv)
    if len(BASELINE_EXTENSIONS) != 169:
        raise SystemExit(f"baseline extension list has {len(BASELINE_EXTENSIONS)} entries, expected 169")
    corpus = build_corpus()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(corpus, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {len(corpus)} corpus items to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
