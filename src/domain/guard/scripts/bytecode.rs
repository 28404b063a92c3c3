//! Whether a Python bytecode file (`__pycache__/x.cpython-311.pyc`) may have been compiled
//! from the source beside it: the names and string constants of its code objects, read
//! from its `marshal` data, must each stand in the source's text. A name the source does
//! not spell (`shutil`, `copy`, `decode` in bytecode whose source only strips a string)
//! means the bytecode holds other code, which Python runs in the source's place when the
//! stamp in its header matches.

/// Most bytes of a bytecode file read.
const MAX_BYTES: usize = 1 << 20;
/// Most objects read from one file.
const MAX_OBJECTS: usize = 200_000;
/// Deepest nesting of containers and code objects followed.
const MAX_DEPTH: usize = 64;

/// `Some(true)` when every name and identifier-like string of the bytecode `pyc` (its
/// 16-byte header first) is spelled in `source`; `Some(false)` when one is not; `None`
/// when the file is not bytecode of a Python nagger reads (3.8 and later).
pub(super) fn may_be_compiled_from(pyc: &[u8], source: &str) -> Option<bool> {
    if pyc.len() < 17 || pyc.len() > MAX_BYTES || pyc[2..4] != [0x0d, 0x0a] {
        return None;
    }
    let magic = u16::from_le_bytes([pyc[0], pyc[1]]);
    // 3.8 is 3400-3413; 3.11 moved to the layout with `co_qualname` (3495 on).
    if magic < 3400 {
        return None;
    }
    let mut reader = Reader {
        bytes: &pyc[16..],
        at: 0,
        objects: 0,
        new_layout: magic >= 3495,
        strings: Vec::new(),
    };
    reader.object(0)?;
    // Every name of the bytecode is spelled in the source's code, its comments left out
    // (a private name as the class mangles it, a constant the compiler joined from
    // pieces of four or more).
    let code: String = source
        .lines()
        .map(|line| comment_at(line).map_or(line, |at| &line[..at]))
        .collect::<Vec<_>>()
        .join("\n");
    let spelled = |s: &str| {
        code.contains(s)
            || s.starts_with('_')
                && s[1..]
                    .find("__")
                    .is_some_and(|at| code.contains(&s[1 + at..]))
            || joined(s, &code)
    };
    Some(reader.strings.iter().all(|s| !checked(s) || spelled(s)))
}

/// Where a `#` comment starts in `line`, outside quotes.
fn comment_at(line: &str) -> Option<usize> {
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (k, c) in line.char_indices() {
        match (quote, c) {
            (Some(_), '\\') if !escaped => {
                escaped = true;
                continue;
            }
            (Some(q), c) if c == q && !escaped => quote = None,
            (None, '"' | '\'') => quote = Some(c),
            (None, '#') => return Some(k),
            _ => {}
        }
        escaped = false;
    }
    None
}

/// Whether `s` is pieces of four or more characters each spelled in `source`
/// (`"SUPPRESS" + "HELP"`, `'abc…' 'ABC…'` joined by the compiler).
fn joined(s: &str, source: &str) -> bool {
    if s.len() > 256 {
        return false;
    }
    let n = s.len();
    let mut reach = vec![false; n + 1];
    reach[0] = true;
    for i in 0..n {
        if !reach[i] || !s.is_char_boundary(i) {
            continue;
        }
        for j in i + 4..=n {
            if s.is_char_boundary(j) && !reach[j] && source.contains(&s[i..j]) {
                reach[j] = true;
            }
        }
    }
    reach[n]
}

/// Whether a string of the bytecode is one its source must spell: a name or an
/// identifier-like constant, not a dunder the compiler adds nor its own markers
/// (`<module>`, `.0`).
fn checked(s: &str) -> bool {
    s.len() >= 2
        && s.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !(s.starts_with("__") && s.ends_with("__"))
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    objects: usize,
    new_layout: bool,
    strings: Vec<String>,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        let end = self.at.checked_add(n)?;
        let slice = self.bytes.get(self.at..end)?;
        self.at = end;
        Some(slice)
    }

    fn byte(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }

    fn int(&mut self) -> Option<i32> {
        self.take(4)
            .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn len(&mut self) -> Option<usize> {
        usize::try_from(self.int()?).ok()
    }

    fn text(&mut self, n: usize) -> Option<()> {
        let text = std::str::from_utf8(self.take(n)?).ok().map(str::to_owned);
        self.strings.extend(text);
        Some(())
    }

    fn object(&mut self, depth: usize) -> Option<()> {
        self.objects += 1;
        if depth > MAX_DEPTH || self.objects > MAX_OBJECTS {
            return None;
        }
        // The high bit marks an object later ones may refer back to.
        match self.byte()? & 0x7f {
            b'0' | b'N' | b'F' | b'T' | b'S' | b'.' => {}
            b'i' | b'r' => {
                self.take(4)?;
            }
            b'l' => {
                let n = self.int()?.unsigned_abs() as usize;
                self.take(n.checked_mul(2)?)?;
            }
            b'g' => {
                self.take(8)?;
            }
            b'y' => {
                self.take(16)?;
            }
            b'f' => {
                let n = usize::from(self.byte()?);
                self.take(n)?;
            }
            b'x' => {
                for _ in 0..2 {
                    let n = usize::from(self.byte()?);
                    self.take(n)?;
                }
            }
            b's' => {
                let n = self.len()?;
                self.take(n)?;
            }
            b't' | b'u' | b'a' | b'A' => {
                let n = self.len()?;
                self.text(n)?;
            }
            b'z' | b'Z' => {
                let n = usize::from(self.byte()?);
                self.text(n)?;
            }
            b'(' | b'[' | b'<' | b'>' => {
                let n = self.len()?;
                for _ in 0..n {
                    self.object(depth + 1)?;
                }
            }
            b')' => {
                let n = self.byte()?;
                for _ in 0..n {
                    self.object(depth + 1)?;
                }
            }
            b'{' => loop {
                if self.bytes.get(self.at) == Some(&b'0') {
                    self.at += 1;
                    break;
                }
                self.object(depth + 1)?;
                self.object(depth + 1)?;
            },
            b'c' => self.code(depth)?,
            _ => return None,
        }
        Some(())
    }

    /// A code object: its counts and flags, then its objects, its first line between.
    fn code(&mut self, depth: usize) -> Option<()> {
        let (counts, before, after) = if self.new_layout {
            // code, consts, names, localsplusnames, localspluskinds, filename, name,
            // qualname | firstlineno | linetable, exceptiontable
            (5, 8, 2)
        } else {
            // code, consts, names, varnames, freevars, cellvars, filename, name |
            // firstlineno | lnotab
            (6, 8, 1)
        };
        self.take(4 * counts)?;
        for _ in 0..before {
            self.object(depth + 1)?;
        }
        self.take(4)?;
        for _ in 0..after {
            self.object(depth + 1)?;
        }
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 3.11 bytecode file holding one code object with `names` and `consts` (strings).
    fn pyc(names: &[&str], consts: &[&str]) -> Vec<u8> {
        let mut b = vec![0xa7, 0x0d, 0x0d, 0x0a];
        b.extend([0u8; 12]);
        b.push(b'c' | 0x80);
        b.extend([0u8; 20]);
        let short = |b: &mut Vec<u8>, s: &str| {
            b.push(b'z');
            b.push(u8::try_from(s.len()).unwrap());
            b.extend(s.as_bytes());
        };
        // code
        b.push(b's');
        b.extend(4i32.to_le_bytes());
        b.extend([0x97, 0, 0x64, 0]);
        // consts
        b.push(b')');
        b.push(u8::try_from(consts.len() + 1).unwrap());
        b.push(b'N');
        for c in consts {
            short(&mut b, c);
        }
        // names
        b.push(b')');
        b.push(u8::try_from(names.len()).unwrap());
        for n in names {
            short(&mut b, n);
        }
        // localsplusnames, localspluskinds
        b.extend([b')', 0, b's', 0, 0, 0, 0]);
        // filename, name, qualname
        short(&mut b, "/p/fmt.py");
        short(&mut b, "<module>");
        short(&mut b, "<module>");
        b.extend(1i32.to_le_bytes());
        b.extend([b's', 0, 0, 0, 0, b's', 0, 0, 0, 0]);
        b
    }

    #[test]
    fn bytecode_of_other_code_is_told_from_the_sources() {
        let source = "def fmt(s):\n    return s.strip()\n";
        assert_eq!(
            may_be_compiled_from(&pyc(&["fmt"], &["strip"]), source),
            Some(true)
        );
        let other = pyc(&["shutil", "copy", "decode"], &["conf/flags.json"]);
        assert_eq!(may_be_compiled_from(&other, source), Some(false));
        assert_eq!(may_be_compiled_from(b"not bytecode at all", source), None);
        // Cut short: not read.
        let mut cut = pyc(&["fmt"], &[]);
        cut.truncate(30);
        assert_eq!(may_be_compiled_from(&cut, source), None);
    }
}
