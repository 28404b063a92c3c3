//! Brace expansion as Bash does it before anything else: `.cla{u,}de` is the two words
//! `.claude` and `.clade`, `{rm,-rf,x}` the three words `rm -rf x`, `f{1..3}` the words
//! `f1 f2 f3`. Only braces, commas and dots the lexer saw unquoted take part; a group with
//! neither a comma nor a sequence stays as written (`{}`, `{a}`, `${x}`).

use super::token::Word;

/// Most words one word expands to; past it the command line is more than the guard reads.
pub(super) const MAX_BRACE_WORDS: usize = 512;

/// One byte of a word and whether the shell would take it as brace syntax.
type Marked = (u8, bool);

/// The words `word` expands to, in order; `None` when they would be more than
/// [`MAX_BRACE_WORDS`]. A word with no brace syntax is returned as it is.
pub(super) fn expand(word: Word) -> Option<Vec<Word>> {
    if word.assignment || !word.active.iter().any(|&i| word.text.get(i) == Some(&b'{')) {
        return Some(vec![word]);
    }
    let marked: Vec<Marked> = word
        .text
        .iter()
        .enumerate()
        .map(|(i, &b)| (b, word.active.binary_search(&i).is_ok()))
        .collect();
    // A sequence of one (`{g..g}`) still expands: only a word with no group stays.
    if first_group(&marked).is_none() {
        return Some(vec![word]);
    }
    let mut out = Vec::new();
    if !expand_into(&marked, &mut out) {
        return None;
    }
    let mut words: Vec<Word> = out
        .into_iter()
        .map(|m| Word {
            active: m
                .iter()
                .enumerate()
                .filter(|(_, (_, a))| *a)
                .map(|(i, _)| i)
                .collect(),
            text: m.into_iter().map(|(b, _)| b).collect(),
            quoted: word.quoted,
            assignment: false,
            runs: word.runs.end..word.runs.end,
            computed: word.computed,
            array: false,
        })
        .collect();
    // The commands of its substitutions ran once: the first word carries them.
    if let Some(first) = words.first_mut() {
        first.runs = word.runs.clone();
    }
    Some(words)
}

/// A group found in a word: alternatives between commas, or a sequence.
enum Group {
    Alternatives {
        open: usize,
        close: usize,
        commas: Vec<usize>,
    },
    Sequence {
        open: usize,
        close: usize,
        items: Vec<Vec<u8>>,
    },
}

/// Appends what `word` expands to; false past [`MAX_BRACE_WORDS`].
fn expand_into(word: &[Marked], out: &mut Vec<Vec<Marked>>) -> bool {
    let Some(group) = first_group(word) else {
        if out.len() >= MAX_BRACE_WORDS {
            return false;
        }
        out.push(word.to_vec());
        return true;
    };
    let (open, close, pieces): (usize, usize, Vec<Vec<Marked>>) = match group {
        Group::Alternatives {
            open,
            close,
            commas,
        } => {
            let mut bounds = vec![open];
            bounds.extend(commas);
            bounds.push(close);
            let pieces = bounds
                .windows(2)
                .map(|w| word[w[0] + 1..w[1]].to_vec())
                .collect();
            (open, close, pieces)
        }
        Group::Sequence { open, close, items } => {
            let pieces = items
                .into_iter()
                .map(|item| item.into_iter().map(|b| (b, false)).collect())
                .collect();
            (open, close, pieces)
        }
    };
    for piece in pieces {
        let mut next = word[..open].to_vec();
        next.extend(piece);
        next.extend_from_slice(&word[close + 1..]);
        if !expand_into(&next, out) {
            return false;
        }
    }
    true
}

/// The leftmost brace group that expands: a `{` whose matching `}` encloses a comma at
/// its own level, or a sequence `{x..y}` / `{x..y..step}`.
fn first_group(word: &[Marked]) -> Option<Group> {
    for open in 0..word.len() {
        if word[open] != (b'{', true) || (open > 0 && word[open - 1] == (b'$', false)) {
            continue;
        }
        let mut depth = 0usize;
        let mut commas = Vec::new();
        let mut close = None;
        for (j, &(b, active)) in word.iter().enumerate().skip(open + 1) {
            if !active {
                continue;
            }
            match b {
                b'{' => depth += 1,
                b'}' if depth == 0 => {
                    close = Some(j);
                    break;
                }
                b'}' => depth -= 1,
                b',' if depth == 0 => commas.push(j),
                _ => {}
            }
        }
        let Some(close) = close else { continue };
        if !commas.is_empty() {
            return Some(Group::Alternatives {
                open,
                close,
                commas,
            });
        }
        let inner = &word[open + 1..close];
        if let Some(items) = sequence(inner) {
            return Some(Group::Sequence { open, close, items });
        }
    }
    None
}

/// The words of a sequence expression (`1..5`, `05..1`, `a..e`, `1..10..3`), when
/// `inner` is one, with its dots unquoted. Longer than the bound: its first words and
/// one more, so that the caller stops.
fn sequence(inner: &[Marked]) -> Option<Vec<Vec<u8>>> {
    let text: Vec<u8> = inner.iter().map(|&(b, _)| b).collect();
    let text = std::str::from_utf8(&text).ok()?;
    let parts: Vec<&str> = text.split("..").collect();
    if !(2..=3).contains(&parts.len()) {
        return None;
    }
    // Every `..` unquoted.
    let mut at = 0;
    for part in &parts[..parts.len() - 1] {
        at += part.len();
        if !(inner[at].1 && inner[at + 1].1) {
            return None;
        }
        at += 2;
    }
    let step: i64 = match parts.get(2) {
        Some(s) => s.parse::<i64>().ok()?.checked_abs()?.max(1),
        None => 1,
    };
    let limit = MAX_BRACE_WORDS + 1;
    if let (Ok(from), Ok(to)) = (parts[0].parse::<i64>(), parts[1].parse::<i64>()) {
        let width = [parts[0], parts[1]]
            .iter()
            .filter(|p| {
                let digits = p.trim_start_matches('-');
                digits.len() > 1 && digits.starts_with('0')
            })
            .map(|p| p.len())
            .max()
            .unwrap_or(0);
        let mut items = Vec::new();
        let mut n = from;
        while items.len() < limit && (if from <= to { n <= to } else { n >= to }) {
            let digits = if n < 0 {
                format!("-{:0w$}", n.unsigned_abs(), w = width.saturating_sub(1))
            } else {
                format!("{n:0width$}")
            };
            items.push(digits.into_bytes());
            n = if from <= to {
                n.checked_add(step)?
            } else {
                n.checked_sub(step)?
            };
        }
        return Some(items);
    }
    let letter = |p: &str| {
        let b = p.as_bytes();
        (b.len() == 1 && b[0].is_ascii_alphabetic()).then(|| b[0])
    };
    let (from, to) = (letter(parts[0])?, letter(parts[1])?);
    let step = u8::try_from(step.min(255)).ok()?;
    let mut items = Vec::new();
    let mut c = from;
    loop {
        items.push(vec![c]);
        if c == to {
            break;
        }
        c = if from < to {
            match c.checked_add(step) {
                Some(n) if n <= to => n,
                _ => break,
            }
        } else {
            match c.checked_sub(step) {
                Some(n) if n >= to => n,
                _ => break,
            }
        };
    }
    Some(items)
}
