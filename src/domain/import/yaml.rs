//! Reading YAML values as PyYAML's `safe_load` (YAML 1.1) gave them to claude-nagger:
//! `yes`/`no`/`on`/`off` are booleans there, and `35_000` an integer.

pub use yaml_rust2::Yaml;

/// Parses one YAML document; an empty file is `Null`.
pub fn parse(text: &str) -> Result<Yaml, String> {
    let docs = yaml_rust2::YamlLoader::load_from_str(text).map_err(|e| e.to_string())?;
    Ok(docs.into_iter().next().unwrap_or(Yaml::Null))
}

/// `value[key]` when `value` is a mapping with that string key.
pub fn get<'a>(value: &'a Yaml, key: &str) -> Option<&'a Yaml> {
    match value {
        Yaml::Hash(map) => map.get(&Yaml::String(key.to_string())),
        _ => None,
    }
}

/// The entries of a mapping, keys as text, in the file's order.
pub fn entries(value: &Yaml) -> Vec<(String, &Yaml)> {
    match value {
        Yaml::Hash(map) => map
            .iter()
            .filter_map(|(k, v)| scalar_text(k).map(|k| (k, v)))
            .collect(),
        _ => Vec::new(),
    }
}

/// A scalar as the text Python's `str()` would give for the value PyYAML made of it.
pub fn scalar_text(value: &Yaml) -> Option<String> {
    match value {
        Yaml::String(s) | Yaml::Real(s) => Some(s.clone()),
        Yaml::Integer(n) => Some(n.to_string()),
        Yaml::Boolean(true) => Some("True".into()),
        Yaml::Boolean(false) => Some("False".into()),
        _ => None,
    }
}

/// A boolean, YAML 1.1's spellings included.
pub fn boolean(value: &Yaml) -> Option<bool> {
    match value {
        Yaml::Boolean(b) => Some(*b),
        Yaml::String(s) => match s.as_str() {
            "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" => Some(true),
            "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF" => Some(false),
            _ => None,
        },
        _ => None,
    }
}

/// Python's truthiness of a value, for `if not config.get('enabled', True)`.
pub fn truthy(value: &Yaml) -> bool {
    match value {
        Yaml::Null | Yaml::BadValue => false,
        Yaml::Integer(n) => *n != 0,
        Yaml::String(s) | Yaml::Real(s) => boolean(value).unwrap_or(!s.is_empty()),
        Yaml::Boolean(b) => *b,
        Yaml::Array(a) => !a.is_empty(),
        Yaml::Hash(h) => !h.is_empty(),
        Yaml::Alias(_) => true,
    }
}

/// A non-negative integer, YAML 1.1's `_` separators included.
pub fn unsigned(value: &Yaml) -> Option<u64> {
    match value {
        Yaml::Integer(n) => u64::try_from(*n).ok(),
        Yaml::String(s) => s.replace('_', "").parse().ok(),
        // A float threshold counts by its whole part.
        Yaml::Real(s) => s.split('.').next().and_then(|whole| whole.parse().ok()),
        _ => None,
    }
}

/// A list of strings; a single string is a list of one (as Python would iterate… its
/// characters; claude-nagger's files always use lists, and one string is taken whole).
pub fn strings(value: &Yaml) -> Vec<String> {
    match value {
        Yaml::Array(items) => items.iter().filter_map(scalar_text).collect(),
        other => scalar_text(other).into_iter().collect(),
    }
}

/// Deep merge as claude-nagger's `_deep_merge`: mappings merge key by key, anything else
/// replaces.
pub fn deep_merge(base: &mut Yaml, over: &Yaml) {
    match (base, over) {
        (Yaml::Hash(b), Yaml::Hash(o)) => {
            for (k, v) in o {
                match b.get_mut(k) {
                    Some(existing @ Yaml::Hash(_)) if matches!(v, Yaml::Hash(_)) => {
                        deep_merge(existing, v);
                    }
                    _ => {
                        b.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        (b, o) => *b = o.clone(),
    }
}
