//! Interpreter code that takes all the machine's memory: a sequence repeated or a buffer
//! allocated with a size spelled as a huge number (`"a" * 10**12`, `bytearray(2**40)`,
//! `Buffer.alloc(1e12)`, `"x" x 2**40`, `np.zeros(10**11)`), or a loop without end that
//! only grows a collection (`while True: a.append(…)`, `for(;;) a.push(…)`). Run, the
//! machine swaps until the kernel kills something, often not the culprit.

/// Bytes (or elements) from which an allocation counts as taking the machine: 16 Gi.
const HUGE: f64 = 16.0 * 1024.0 * 1024.0 * 1024.0;

/// Calls that allocate as much as their first argument says.
const ALLOCATORS: &[&str] = &[
    "bytearray",
    "bytes",
    "alloc",
    "allocunsafe",
    "allocunsafeslow",
    "array",
    "arraybuffer",
    "uint8array",
    "float64array",
    "zeros",
    "ones",
    "empty",
    "full",
    "malloc",
    "calloc",
    "realloc",
    "repeat",
    "make",
    "rep",
    "numeric",
    "character",
    "vector",
    "integer",
    "mmap",
    "randn",
    "rand",
    "urandom",
    "randbytes",
    "with_capacity",
    "new",
    "fill",
    "padend",
    "padstart",
    "ljust",
    "rjust",
    "zfill",
    "center",
];

/// How `code` takes all memory, when it does.
pub(crate) fn exhausts_memory(code: &str) -> Option<&'static str> {
    let lower = code.to_ascii_lowercase();
    let s: Vec<u8> = lower.bytes().filter(|c| !c.is_ascii_whitespace()).collect();
    if huge_allocation(&s) {
        return Some(
            "allocates a buffer or repeats a sequence to a size past the machine's memory",
        );
    }
    growing_loop(&s).then_some("grows a collection in a loop without end")
}

/// A repetition or allocator call whose size is a huge literal expression.
fn huge_allocation(s: &[u8]) -> bool {
    let mut i = 0;
    while i < s.len() {
        let starts = s[i].is_ascii_digit() && (i == 0 || !is_word(s[i - 1]));
        if !starts {
            i += 1;
            continue;
        }
        let (value, end) = expression(s, i);
        if value >= HUGE && sized(s, i, end) {
            return true;
        }
        i = end.max(i + 1);
    }
    false
}

/// Whether the expression `s[start..end]` is a size: the count of a repetition or the
/// first argument of an allocator.
fn sized(s: &[u8], start: usize, end: usize) -> bool {
    // `[0] * (1 << 40)`, `"x" x (2**40)`: the size in parentheses of its own.
    let (mut open, mut close) = (start, end);
    while open > 0 && s[open - 1] == b'(' && s.get(close) == Some(&b')') {
        open -= 1;
        close += 1;
    }
    let before = &s[..open];
    let after = &s[close..];
    // `"a" * N`, `[0] * N`, `(x,) * N`, `"x" x N` (Perl), `N * "a"`.
    let repeated_before = before.ends_with(b"*")
        && !before.ends_with(b"**")
        && before
            .len()
            .checked_sub(2)
            .is_some_and(|k| matches!(before[k], b'"' | b'\'' | b']' | b')' | b'`'));
    let perl_repeat = before.len() >= 2
        && before.ends_with(b"x")
        && matches!(before[before.len() - 2], b'"' | b'\'' | b')');
    let repeated_after = after.starts_with(b"*")
        && !after.starts_with(b"**")
        && after
            .get(1)
            .is_some_and(|c| matches!(c, b'"' | b'\'' | b'[' | b'('));
    if repeated_before || perl_repeat || repeated_after {
        return true;
    }
    // `alloc(N`, `np.zeros((N`, `Array.new(N`, `make([]byte, N`, `vec![0; N]`.
    let mut k = start;
    while k > 0 && matches!(s[k - 1], b'(' | b'[' | b',' | b';') {
        k -= 1;
        if s[k] == b',' || s[k] == b';' {
            // `make([]byte, N)`, `vec![0u8; N]`, `np.full((N), 0)`: one argument back.
            let open = s[..k].iter().rposition(|c| matches!(c, b'(' | b'['));
            match open {
                Some(o) if !s[o + 1..k].contains(&b'(') => k = o + 1,
                _ => return false,
            }
        }
    }
    let name_end = k;
    if k == start || !matches!(s.get(name_end), Some(b'(' | b'[')) {
        return false;
    }
    let mut name_start = name_end;
    while name_start > 0 && (is_word(s[name_start - 1]) || s[name_start - 1] == b'!') {
        name_start -= 1;
    }
    let name = String::from_utf8_lossy(&s[name_start..name_end]);
    let name = name.trim_end_matches('!');
    // `Buffer.alloc`, `np.zeros`: the method; `new Array` (spaces gone): the class.
    let name = name.rsplit('.').next().unwrap_or(name);
    let name = name
        .strip_prefix("new")
        .filter(|n| !n.is_empty())
        .unwrap_or(name);
    ALLOCATORS.contains(&name) || name == "vec"
}

/// The value of the arithmetic of literals at `s[i..]` (`10**12`, `2**40`, `1e12`,
/// `1<<40`, `4*1024**3`, `1_000_000_000_000`, `(1<<34)`), and where it ends.
fn expression(s: &[u8], i: usize) -> (f64, usize) {
    let mut terms: Vec<f64> = Vec::new();
    let (mut value, mut k) = power(s, i);
    loop {
        if s[k..].starts_with(b"<<") {
            let (shift, next) = power(s, k + 2);
            if next == k + 2 {
                break;
            }
            value *= 2f64.powf(shift.min(1024.0));
            k = next;
        } else if s.get(k) == Some(&b'*') && !s[k..].starts_with(b"**") {
            let (factor, next) = power(s, k + 1);
            if next == k + 1 {
                break;
            }
            terms.push(value);
            value = factor;
            k = next;
        } else {
            break;
        }
    }
    (terms.iter().product::<f64>() * value, k)
}

/// A number raised by `**` or `^` (R): `10**12`, `2^40`.
fn power(s: &[u8], i: usize) -> (f64, usize) {
    let (base, mut k) = number(s, i);
    if k == i {
        return (0.0, i);
    }
    let op = if s[k..].starts_with(b"**") {
        2
    } else if s.get(k) == Some(&b'^') {
        1
    } else {
        return (base, k);
    };
    let (exponent, next) = number(s, k + op);
    if next == k + op {
        return (base, k);
    }
    k = next;
    (base.powf(exponent.min(1024.0)), k)
}

/// A literal number at `s[i..]`: digits with `_` separators, a fraction, an exponent,
/// an integer suffix (`L`, `n`, `u64`), or a parenthesised expression.
fn number(s: &[u8], i: usize) -> (f64, usize) {
    if s.get(i) == Some(&b'(') {
        let (value, k) = expression(s, i + 1);
        if k > i + 1 && s.get(k) == Some(&b')') {
            return (value, k + 1);
        }
        return (0.0, i);
    }
    let mut k = i;
    let mut text = String::new();
    while k < s.len() && (s[k].is_ascii_digit() || s[k] == b'_' || s[k] == b'.') {
        if s[k] != b'_' {
            text.push(s[k] as char);
        }
        k += 1;
    }
    if text.is_empty() {
        return (0.0, i);
    }
    if s.get(k) == Some(&b'e') && s.get(k + 1).is_some_and(u8::is_ascii_digit) {
        text.push('e');
        k += 1;
        while k < s.len() && s[k].is_ascii_digit() {
            text.push(s[k] as char);
            k += 1;
        }
    }
    // Integer suffixes: `10L`, `10n`, `1u64`.
    while k < s.len() && matches!(s[k], b'l' | b'n' | b'u' | b'i') {
        k += 1;
        while k < s.len() && s[k].is_ascii_digit() {
            k += 1;
        }
    }
    (text.parse().unwrap_or(0.0), k)
}

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'.'
}

/// A loop without end whose body only appends to a collection: nothing that leaves,
/// sleeps, reads, or drops what it added.
fn growing_loop(s: &[u8]) -> bool {
    let text = String::from_utf8_lossy(s);
    let endless = [
        "whiletrue:",
        "while1:",
        "while1;",
        "while(1)",
        "while(true)",
        "for(;;)",
        "loop{",
        "loopdo",
        "whiletruedo",
        "1while",
        "repeat{",
        "untilfalse",
        "iter(int,1)",
    ];
    if !endless.iter().any(|l| text.contains(l)) {
        return false;
    }
    // The whole text: Perl and Ruby put the loop after its body (`push @a, 1 while 1`).
    let body = &text;
    let grows = [
        "++]=",
        ".append(",
        ".push(",
        ".push_back(",
        ".extend(",
        "push@",
        "push(@",
        ".add(",
        "<<",
        "+=[",
        "+=\"",
        "+='",
        ".concat(",
        "[]=",
        ".insert(",
        "table.insert(",
        "c(",
    ]
    .iter()
    .any(|g| body.contains(g));
    let leaves = [
        "break", "return", "exit", "sleep", "last", "die", "raise", "throw", "pop", "clear",
        "shift", "input(", "read", "recv", "accept", "wait", "select", "get(",
    ]
    .iter()
    .any(|w| body.contains(w));
    grows && !leaves
}

/// Code that forks inside a loop without end.
pub(crate) fn forking_loop(code: &str) -> bool {
    let lower = code.to_ascii_lowercase();
    let compact: String = lower.chars().filter(|c| !c.is_whitespace()).collect();
    // A fork, or a command started in the background (`os.execute("x &")`,
    // `system("x &")`): the loop does not wait for it.
    let backgrounds = ["execute(", "system(", "popen(", "exec("]
        .iter()
        .any(|call| compact.contains(call))
        && (compact.contains("&\")") || compact.contains("&')"));
    let forks = compact.contains("fork") || compact.contains("spawn(") || backgrounds;
    forks
        && [
            "while1",
            "whiletrue",
            "while(1)",
            "while(true)",
            "loop{",
            "loopdo",
            "for(;;)",
            "until0",
            "1whilefork",
            "whilefork",
            "iter(int,1)",
        ]
        .iter()
        .any(|l| compact.contains(l))
}

#[cfg(test)]
mod tests {
    use super::exhausts_memory;

    #[test]
    fn huge_repetitions_and_allocations_take_the_memory() {
        for code in [
            "x = 'a' * 10**12",
            "b = bytearray(2**40)",
            "const b = Buffer.alloc(1e12)",
            "my $x = \"x\" x (2**40);",
            "import numpy as np; a = np.zeros(10**11)",
            "data = [0] * (1 << 40)",
            "s = 10**12 * 'a'",
            "new Array(1e11).fill(0)",
            "b := make([]byte, 1<<40)",
            "let v = vec![0u8; 1 << 40];",
            "x <- rep(1, 1e11)",
            "'a'.repeat(2**36)",
            "buf = bytearray(64*1024**3)",
            "a = 'x' * 1_000_000_000_000",
        ] {
            assert!(exhausts_memory(code).is_some(), "{code}");
        }
    }

    #[test]
    fn endless_growing_loops_take_the_memory() {
        for code in [
            "a = []\nwhile True:\n    a.append(' ' * 1024)",
            "const a=[]; while(true) a.push(new Array(1e6))",
            "my @a; push @a, 'x' x 1e6 while 1;",
            "a = []; loop do a << 'x' * 10000 end",
            "BEGIN{while(1)a[i++]=i}",
            "t = {} while true do table.insert(t, string.rep('x', 1e6)) end",
        ] {
            assert!(exhausts_memory(code).is_some(), "{code}");
        }
    }

    #[test]
    fn ordinary_numbers_and_bounded_loops_do_not() {
        for code in [
            "print(2**64)",
            "x = 'a' * 80",
            "b = bytearray(4096)",
            "print(10**12 + 1)",
            "for i in range(10**12): pass",
            "while True:\n    line = input()\n    out.append(line)",
            "while True:\n    a.append(1)\n    if len(a) > 10: break",
            "print('-' * 40)",
            "n = 1e12; print(n)",
            "a = np.zeros((100, 100))",
            "time.sleep(1e3)",
            "x = 1 << 40",
        ] {
            assert!(exhausts_memory(code).is_none(), "{code}");
        }
    }
}
