//! Archives unpacked where nagger's files could land (the project's root, a home): what
//! a zip or a plain tar holds is listed from the file itself, bounded and never blocking,
//! and each member is judged where it lands. An archive that cannot be listed there (a
//! compressed tar, 7z, cpio, one read from stdin) is asked about; one that does not
//! exist unpacks nothing.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use crate::base::files;

/// The most of a zip's central directory that is read.
const MAX_DIRECTORY: u64 = 4 << 20;
/// The most members listed (a tar's headers are read one by one).
const MAX_MEMBERS: usize = 5_000;
/// The longest GNU long name read.
const MAX_NAME: u64 = 4_096;

/// One member of an archive: its path as stored, and what it links to when it is a link.
#[derive(Debug, PartialEq)]
pub(super) struct Member {
    pub(super) name: String,
    pub(super) link: Option<Link>,
}

/// A member that unpacks as a link rather than a file.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Link {
    /// A symbolic link to the path stored (relative to the folder the link lands in), or
    /// to a path that cannot be read without unpacking (a zip's compressed data).
    Symbolic(Option<String>),
    /// A hard link to another path of the archive (relative to where it is unpacked).
    Hard(String),
}

#[cfg(test)]
impl Member {
    fn file(name: String) -> Member {
        Member { name, link: None }
    }
}

/// What listing an archive found.
#[derive(Debug, PartialEq)]
pub(super) enum Listing {
    /// Its members, in the order they are unpacked.
    Members(Vec<Member>),
    /// No such file: nothing is unpacked.
    Missing,
    /// It could not be listed, and why.
    Unlisted(String),
}

/// Lists the archive at `path`: zip and uncompressed tar; anything else is unlisted.
pub(super) fn list(path: &Path) -> Listing {
    let mut file = match files::open_regular(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Listing::Missing,
        Err(e) => return Listing::Unlisted(e.to_string()),
    };
    let mut head = [0u8; 512];
    let got = match read_at(&mut file, 0, &mut head) {
        Ok(n) => n,
        Err(e) => return Listing::Unlisted(e.to_string()),
    };
    let head = &head[..got];
    let result = if head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06") {
        zip_members(&mut file)
    } else if head.len() == 512 && &head[257..262] == b"ustar" || looks_like_old_tar(head) {
        tar_members(&mut file)
    } else if head.starts_with(b"070701") || head.starts_with(b"070702") {
        cpio_members(&mut file, Cpio::New)
    } else if head.starts_with(b"070707") {
        cpio_members(&mut file, Cpio::Old)
    } else if head.starts_with(b"\xc7\x71") || head.starts_with(b"\x71\xc7") {
        Err("a binary cpio archive, whose members nagger does not list".into())
    } else if let Some(name) = uu_name(head) {
        Ok(vec![Member { name, link: None }])
    } else if [
        &b"\x1f\x8b"[..],
        b"\xfd7zXZ\x00",
        b"BZh",
        b"\x28\xb5\x2f\xfd",
        b"7z\xbc\xaf",
    ]
    .iter()
    .any(|magic| head.starts_with(magic))
    {
        Err("compressed: its members cannot be listed without unpacking it".into())
    } else {
        Err("a format nagger does not list".into())
    };
    match result {
        Ok(members) => Listing::Members(members),
        Err(why) => Listing::Unlisted(why),
    }
}

/// A tar header without the ustar magic (v7): a name, then octal fields with a valid
/// checksum.
fn looks_like_old_tar(head: &[u8]) -> bool {
    if head.len() < 512 || head[0] == 0 {
        return false;
    }
    let Some(stored) = octal(&head[148..156]) else {
        return false;
    };
    let sum: u64 = head
        .iter()
        .enumerate()
        .map(|(i, b)| {
            if (148..156).contains(&i) {
                32
            } else {
                u64::from(*b)
            }
        })
        .sum();
    sum == stored
}

/// The file a uuencoded text writes: the name on its `begin MODE NAME` (or
/// `begin-base64 MODE NAME`) line, which may follow other text.
fn uu_name(head: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(head);
    let line = text.lines().find(|l| {
        (l.starts_with("begin ") || l.starts_with("begin-base64 "))
            && l.split_whitespace()
                .nth(1)
                .is_some_and(|m| !m.is_empty() && m.bytes().all(|b| (b'0'..=b'7').contains(&b)))
    })?;
    let mut fields = line.splitn(3, ' ');
    fields.next();
    fields.next();
    let name = fields.next()?.trim_end_matches('\r');
    (!name.is_empty()).then(|| name.to_owned())
}

/// The two text headers of cpio: `newc`/`crc` (hexadecimal, aligned to four bytes) and
/// `odc` (octal, unaligned).
#[derive(Clone, Copy)]
enum Cpio {
    New,
    Old,
}

/// A cpio archive's members, header by header up to its `TRAILER!!!`.
fn cpio_members(file: &mut File, kind: Cpio) -> Result<Vec<Member>, String> {
    let mut members = Vec::new();
    let mut offset = 0u64;
    let (header_len, align) = match kind {
        Cpio::New => (110usize, 4u64),
        Cpio::Old => (76usize, 1u64),
    };
    let pad = |n: u64| n.div_ceil(align) * align;
    loop {
        if members.len() >= MAX_MEMBERS {
            return Err(format!("more than {MAX_MEMBERS} members"));
        }
        let mut header = vec![0u8; header_len];
        let got = read_at(file, offset, &mut header).map_err(|e| e.to_string())?;
        if got < header_len {
            return Err("an archive cut short".into());
        }
        let field = |at: usize, len: usize, radix: u32| -> Option<u64> {
            let text = std::str::from_utf8(header.get(at..at + len)?).ok()?;
            u64::from_str_radix(text, radix).ok()
        };
        let (mode, size, name_len) = match kind {
            Cpio::New if header.starts_with(b"0707") => {
                (field(14, 8, 16), field(54, 8, 16), field(94, 8, 16))
            }
            Cpio::Old if header.starts_with(b"070707") => {
                (field(18, 6, 8), field(65, 11, 8), field(59, 6, 8))
            }
            _ => return Err("a header that is not cpio's".into()),
        };
        let (Some(mode), Some(size), Some(name_len)) = (mode, size, name_len) else {
            return Err("a header with a bad field".into());
        };
        if name_len == 0 || name_len > MAX_NAME {
            return Err("a member with a bad name".into());
        }
        let mut name = vec![0u8; usize::try_from(name_len).map_err(|e| e.to_string())?];
        let name_at = offset + header_len as u64;
        read_at(file, name_at, &mut name).map_err(|e| e.to_string())?;
        let end = name.iter().position(|b| *b == 0).unwrap_or(name.len());
        let name = String::from_utf8_lossy(&name[..end]).into_owned();
        let data_at = pad(name_at + name_len);
        if name == "TRAILER!!!" {
            return Ok(members);
        }
        let link = if mode & 0o170_000 == 0o120_000 {
            let mut target = vec![0u8; usize::try_from(size.min(MAX_NAME)).unwrap_or(0)];
            read_at(file, data_at, &mut target).map_err(|e| e.to_string())?;
            Some(Link::Symbolic(Some(
                String::from_utf8_lossy(&target).into_owned(),
            )))
        } else {
            None
        };
        members.push(Member { name, link });
        offset = pad(data_at + size);
    }
}

fn read_at(file: &mut File, offset: u64, buf: &mut [u8]) -> std::io::Result<usize> {
    file.seek(SeekFrom::Start(offset))?;
    let mut filled = 0;
    while filled < buf.len() {
        let n = file.read(&mut buf[filled..])?;
        if n == 0 {
            break;
        }
        filled += n;
    }
    Ok(filled)
}

fn u16_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from(u16::from_le_bytes(
        b.get(at..at + 2)?.try_into().ok()?,
    )))
}

fn u32_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from(u32::from_le_bytes(
        b.get(at..at + 4)?.try_into().ok()?,
    )))
}

/// The names in a zip's central directory, found from its end record. A member made on
/// Unix with a link's mode unpacks as a symbolic link (`unzip` makes one), its target in
/// the member's data.
fn zip_members(file: &mut File) -> Result<Vec<Member>, String> {
    let len = file.metadata().map_err(|e| e.to_string())?.len();
    // The end record (22 bytes) and a comment of at most 64 KiB.
    let tail_len = len.min(22 + 0xFFFF);
    let mut tail = vec![0u8; usize::try_from(tail_len).map_err(|e| e.to_string())?];
    read_at(file, len - tail_len, &mut tail).map_err(|e| e.to_string())?;
    let end = (0..tail.len().saturating_sub(21))
        .rev()
        .find(|&i| tail[i..].starts_with(b"PK\x05\x06"))
        .ok_or("no zip end record")?;
    let record = &tail[end..];
    let size = u32_at(record, 12).ok_or("short end record")?;
    let offset = u32_at(record, 16).ok_or("short end record")?;
    if size == 0xFFFF_FFFF || offset == 0xFFFF_FFFF {
        return Err("a zip64 archive".into());
    }
    if size > MAX_DIRECTORY {
        return Err(format!(
            "a directory larger than {} MiB",
            MAX_DIRECTORY >> 20
        ));
    }
    let mut directory = vec![0u8; usize::try_from(size).map_err(|e| e.to_string())?];
    let got = read_at(file, offset, &mut directory).map_err(|e| e.to_string())?;
    let directory = &directory[..got];
    let mut members = Vec::new();
    let mut at = 0usize;
    while directory.get(at..at + 4) == Some(b"PK\x01\x02") {
        if members.len() >= MAX_MEMBERS {
            return Err(format!("more than {MAX_MEMBERS} members"));
        }
        let name_len = u16_at(directory, at + 28).ok_or("short entry")?;
        let extra = u16_at(directory, at + 30).ok_or("short entry")?;
        let comment = u16_at(directory, at + 32).ok_or("short entry")?;
        let start = at + 46;
        let stop = start + usize::try_from(name_len).map_err(|e| e.to_string())?;
        let name = directory.get(start..stop).ok_or("short entry")?;
        let made_on_unix = directory.get(at + 5) == Some(&3);
        let mode = u32_at(directory, at + 38).ok_or("short entry")? >> 16;
        let link = (made_on_unix && mode & 0o170_000 == 0o120_000).then_some(Link::Symbolic(None));
        let extra_stop = stop + usize::try_from(extra).map_err(|e| e.to_string())?;
        let extras = directory.get(stop..extra_stop).unwrap_or(&[]);
        for name in zip_names(name, extras) {
            members.push(Member {
                name,
                link: link.clone(),
            });
        }
        at = extra_stop + usize::try_from(comment).map_err(|e| e.to_string())?;
    }
    Ok(members)
}

/// Every name one zip entry may unpack as: the stored name; the same with `\` read as a
/// folder separator (`unzip` does so for names made on systems that write paths that way);
/// and the name of a Unicode path extra field (`0x7075`), which `unzip` uses instead of the
/// stored one.
fn zip_names(stored: &[u8], extras: &[u8]) -> Vec<String> {
    let mut names = vec![String::from_utf8_lossy(stored).into_owned()];
    let mut at = 0usize;
    while let (Some(id), Some(size)) = (u16_at(extras, at), u16_at(extras, at + 2)) {
        let start = at + 4;
        let Some(data) = usize::try_from(size)
            .ok()
            .and_then(|size| extras.get(start..start + size))
        else {
            break;
        };
        // Version (1 byte) and the CRC-32 of the stored name (4), then the name.
        if id == 0x7075
            && let Some(unicode) = data.get(5..)
        {
            names.push(String::from_utf8_lossy(unicode).into_owned());
        }
        at = start + data.len();
    }
    for i in 0..names.len() {
        if names[i].contains('\\') {
            let turned = names[i].replace('\\', "/");
            names.push(turned);
        }
    }
    names.dedup();
    names
}

/// An octal number field of a tar header.
fn octal(field: &[u8]) -> Option<u64> {
    let text = std::str::from_utf8(field).ok()?;
    let text = text.trim_matches(|c: char| c == '\0' || c == ' ');
    if text.is_empty() {
        return Some(0);
    }
    u64::from_str_radix(text, 8).ok()
}

/// The members of an uncompressed tar, header by header (data is skipped, not read):
/// names, and the targets of links (`1` hard, `2` symbolic, GNU `K` long targets and pax
/// `linkpath`).
fn tar_members(file: &mut File) -> Result<Vec<Member>, String> {
    let mut members = Vec::new();
    let mut offset = 0u64;
    let mut long_name: Option<String> = None;
    let mut long_link: Option<String> = None;
    loop {
        let mut header = [0u8; 512];
        let got = read_at(file, offset, &mut header).map_err(|e| e.to_string())?;
        if got < 512 || header.iter().all(|b| *b == 0) {
            return Ok(members);
        }
        if members.len() >= MAX_MEMBERS {
            return Err(format!("more than {MAX_MEMBERS} members"));
        }
        let size = octal(&header[124..136]).ok_or("a header with a bad size")?;
        let kind = header[156];
        let field = |range: std::ops::Range<usize>| {
            let bytes = &header[range];
            let end = bytes.iter().position(|b| *b == 0).unwrap_or(bytes.len());
            String::from_utf8_lossy(&bytes[..end]).into_owned()
        };
        let data = offset + 512;
        match kind {
            // GNU long name or link target, or a pax header: the next member's name or
            // target is in the data.
            b'L' | b'K' | b'x' => {
                let mut text = vec![0u8; usize::try_from(size.min(MAX_NAME)).unwrap_or(0)];
                read_at(file, data, &mut text).map_err(|e| e.to_string())?;
                let text = String::from_utf8_lossy(&text).into_owned();
                let pax = |key: &str| {
                    text.lines()
                        .find_map(|l| l.split_once(key).map(|(_, p)| p.to_owned()))
                };
                match kind {
                    b'L' => long_name = Some(text.trim_end_matches('\0').to_owned()),
                    b'K' => long_link = Some(text.trim_end_matches('\0').to_owned()),
                    _ => {
                        long_name = pax(" path=").or(long_name);
                        long_link = pax(" linkpath=").or(long_link);
                    }
                }
            }
            _ => {
                let prefix = field(345..500);
                let name = long_name.take().unwrap_or_else(|| {
                    let name = field(0..100);
                    if prefix.is_empty() {
                        name
                    } else {
                        format!("{prefix}/{name}")
                    }
                });
                let target = long_link.take().unwrap_or_else(|| field(157..257));
                let link = match kind {
                    b'1' => Some(Link::Hard(target)),
                    b'2' => Some(Link::Symbolic(Some(target))),
                    _ => None,
                };
                members.push(Member { name, link });
            }
        }
        offset = data + size.div_ceil(512) * 512;
    }
}

/// A ustar header for tests: `name`, `size` bytes of data, of `kind`.
#[cfg(test)]
pub(super) fn tar_header(name: &str, size: u64, kind: u8) -> Vec<u8> {
    let mut h = vec![0u8; 512];
    h[..name.len()].copy_from_slice(name.as_bytes());
    let size = format!("{size:011o}\0");
    h[124..136].copy_from_slice(size.as_bytes());
    h[156] = kind;
    h[257..263].copy_from_slice(b"ustar\0");
    h[148..156].copy_from_slice(b"        ");
    let sum: u32 = h.iter().map(|b| u32::from(*b)).sum();
    h[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(clippy::cast_possible_truncation)] // a few hundred bytes
    fn a_plain_tar_is_listed_header_by_header() {
        let dir = tempfile::tempdir().unwrap();
        let mut tar = tar_header("notes.txt", 700, b'0');
        tar.extend(vec![b'n'; 1024]);
        let long = ".claude/".to_owned()
            + &"x/".repeat(60)
            + "../../".repeat(60).as_str()
            + "settings.json";
        tar.extend(tar_header("././@LongLink", long.len() as u64, b'L'));
        let mut name = long.clone().into_bytes();
        name.resize(name.len().div_ceil(512) * 512, 0);
        tar.extend(name);
        tar.extend(tar_header("ignored-short-name", 0, b'0'));
        tar.extend(vec![0u8; 1024]);
        let path = dir.path().join("x.tar");
        std::fs::write(&path, tar).unwrap();
        assert_eq!(
            list(&path),
            Listing::Members(vec![Member::file("notes.txt".into()), Member::file(long)])
        );
    }

    #[test]
    #[allow(clippy::cast_possible_truncation)] // a few hundred bytes
    fn a_zip_is_listed_from_its_central_directory() {
        let dir = tempfile::tempdir().unwrap();
        let names = ["src/main.rs", ".claude/settings.json"];
        let mut zip = b"PK\x03\x04".to_vec();
        zip.extend(vec![0u8; 60]);
        let offset = zip.len() as u32;
        let mut directory = Vec::new();
        for name in names {
            let mut entry = b"PK\x01\x02".to_vec();
            entry.extend(vec![0u8; 24]);
            entry.extend((name.len() as u16).to_le_bytes());
            entry.extend([0u8; 16]);
            entry.extend(name.as_bytes());
            directory.extend(entry);
        }
        let size = directory.len() as u32;
        zip.extend(&directory);
        zip.extend(b"PK\x05\x06");
        zip.extend([0u8; 6]);
        zip.extend((names.len() as u16).to_le_bytes());
        zip.extend(size.to_le_bytes());
        zip.extend(offset.to_le_bytes());
        zip.extend([0u8; 2]);
        let path = dir.path().join("x.zip");
        std::fs::write(&path, zip).unwrap();
        assert_eq!(
            list(&path),
            Listing::Members(
                names
                    .iter()
                    .map(|n| Member::file((*n).to_owned()))
                    .collect()
            )
        );
    }

    #[test]
    fn a_zip_name_is_also_read_as_unzip_turns_it() {
        let mut unicode = vec![1u8, 0, 0, 0, 0];
        unicode.extend(b".claude/settings.json");
        let mut extras = 0x5455u16.to_le_bytes().to_vec();
        extras.extend(1u16.to_le_bytes());
        extras.push(0);
        extras.extend(0x7075u16.to_le_bytes());
        extras.extend(u16::try_from(unicode.len()).unwrap().to_le_bytes());
        extras.extend(unicode);
        assert_eq!(
            zip_names(b"innocent.txt", &extras),
            ["innocent.txt", ".claude/settings.json"]
        );
        assert_eq!(
            zip_names(b".claude\\settings.local.json", &[]),
            [
                ".claude\\settings.local.json",
                ".claude/settings.local.json"
            ]
        );
        // A field that claims more than is there ends the reading.
        assert_eq!(zip_names(b"a", &[0x75, 0x70, 0xff, 0xff, 1]), ["a"]);
    }

    #[test]
    fn links_in_a_tar_are_listed_with_their_targets() {
        let dir = tempfile::tempdir().unwrap();
        let mut tar = tar_header("lnk", 0, b'2');
        tar[157..164].copy_from_slice(b".claude");
        // The checksum is not checked when listing.
        tar.extend(tar_header("lnk/settings.local.json", 0, b'0'));
        let mut hard = tar_header("h", 0, b'1');
        hard[157..172].copy_from_slice(b".claude-nagger/");
        tar.extend(hard);
        tar.extend(vec![0u8; 1024]);
        let path = dir.path().join("x.tar");
        std::fs::write(&path, tar).unwrap();
        assert_eq!(
            list(&path),
            Listing::Members(vec![
                Member {
                    name: "lnk".into(),
                    link: Some(Link::Symbolic(Some(".claude".into())))
                },
                Member::file("lnk/settings.local.json".into()),
                Member {
                    name: "h".into(),
                    link: Some(Link::Hard(".claude-nagger/".into()))
                },
            ])
        );
    }

    #[test]
    fn compressed_missing_and_unknown_archives() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(list(&dir.path().join("none.zip")), Listing::Missing);
        let gz = dir.path().join("x.tar.gz");
        std::fs::write(&gz, b"\x1f\x8b\x08\x00rest").unwrap();
        assert!(matches!(list(&gz), Listing::Unlisted(why) if why.contains("compressed")));
        let text = dir.path().join("x.txt");
        std::fs::write(&text, b"hello").unwrap();
        assert!(matches!(list(&text), Listing::Unlisted(_)));
    }
}

/// The sed-style renames an extracting command applies to member names: tar's
/// `--transform`/`--xform`, bsdtar's and pax's `-s`.
pub(super) fn renames<'a>(name: &str, args: &'a [String]) -> Vec<&'a str> {
    let mut out = Vec::new();
    if matches!(name, "tar" | "gtar" | "bsdtar") {
        out.extend(super::super::shell::option_values(
            args,
            &[],
            &["--transform", "--xform"],
        ));
    }
    if matches!(name, "bsdtar" | "pax") {
        out.extend(super::super::shell::option_values(args, &["-s"], &[]));
    }
    out
}

/// `member` renamed by the sed-style expression `expr` (`s,^x,.claude-nagger,` or, for
/// bsdtar and pax, `,^x,.claude-nagger,`, with
/// flags): `None` when the expression cannot be evaluated without a regular-expression
/// engine (a pattern or replacement with special characters), so the caller asks.
pub(super) fn rename(expr: &str, member: &str) -> Option<String> {
    // tar's `s,a,b,`; bsdtar's and pax's `,a,b,`.
    let rest = match expr.strip_prefix('s') {
        Some(rest) if rest.starts_with(|c: char| !c.is_alphanumeric()) => rest,
        _ => expr,
    };
    let delim = rest.chars().next().filter(|c| !c.is_alphanumeric())?;
    let parts: Vec<&str> = rest[delim.len_utf8()..].split(delim).collect();
    let [pattern, replacement, flags] = parts.as_slice() else {
        return None;
    };
    if !flags
        .chars()
        .all(|c| c.is_ascii_digit() || "girxsSRhH".contains(c))
    {
        return None;
    }
    let (anchored, pattern) = match pattern.strip_prefix('^') {
        Some(p) => (true, p),
        None => (false, *pattern),
    };
    let (ends, pattern) = match pattern.strip_suffix('$') {
        Some(p) => (true, p),
        None => (false, pattern),
    };
    let special = |s: &str, set: &str| s.chars().any(|c| set.contains(c));
    if special(pattern, ".*[]\\+?(){}|^$") || special(replacement, "&\\") {
        return None;
    }
    if flags.contains('i') || flags.chars().any(|c| c.is_ascii_digit()) {
        return None;
    }
    let renamed = match (anchored, ends) {
        (true, true) => (member == pattern).then(|| (*replacement).to_owned()),
        (true, false) => member
            .strip_prefix(pattern)
            .map(|tail| format!("{replacement}{tail}")),
        (false, true) => member
            .strip_suffix(pattern)
            .map(|head| format!("{head}{replacement}")),
        (false, false) if pattern.is_empty() => Some(format!("{replacement}{member}")),
        (false, false) if flags.contains('g') => Some(member.replace(pattern, replacement)),
        (false, false) => Some(member.replacen(pattern, replacement, 1)),
    };
    Some(renamed.unwrap_or_else(|| member.to_owned()))
}

#[cfg(test)]
mod rename_tests {
    use super::*;

    #[test]
    fn sed_style_renames_are_applied_where_they_can_be() {
        let r = |e: &str, m: &str| rename(e, m);
        assert_eq!(
            r("s,^x,.claude-nagger,", "x/config.toml").as_deref(),
            Some(".claude-nagger/config.toml")
        );
        assert_eq!(r("s,^x,.claude-nagger,", "y/x").as_deref(), Some("y/x"));
        assert_eq!(r("s/a/b/g", "a/a").as_deref(), Some("b/b"));
        assert_eq!(r("s/a/b/", "a/a").as_deref(), Some("b/a"));
        assert_eq!(
            r("s|^|.claude/|", "settings.json").as_deref(),
            Some(".claude/settings.json")
        );
        assert_eq!(r("s,x.*,y,", "x1"), None);
        assert_eq!(r("s,\\(x\\),\\1y,", "x"), None);
        assert_eq!(r("s,x,&y,", "x"), None);
        assert_eq!(r("nonsense", "x"), None);
        assert_eq!(
            r(",^x,.claude-nagger,", "x/a").as_deref(),
            Some(".claude-nagger/a")
        );
        let args: Vec<String> = ["-xf", "x.tar", "--transform=s,a,b,", "--xform", "s,c,d,"]
            .iter()
            .map(|a| (*a).to_owned())
            .collect();
        assert_eq!(renames("tar", &args), vec!["s,a,b,", "s,c,d,"]);
    }
}
