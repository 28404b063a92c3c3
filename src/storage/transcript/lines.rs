//! Line shapes: only the fields nagger reads, each tolerant of a wrong type (it reads as
//! absent), borrowing strings from the line where it can; everything else is skipped
//! without allocating.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::records::Usage;

#[derive(Default, Deserialize)]
#[serde(default)]
pub(super) struct RawLine<'a> {
    #[serde(rename = "type", borrow)]
    pub(super) kind: LooseStr<'a>,
    #[serde(borrow)]
    pub(super) subtype: LooseStr<'a>,
    #[serde(rename = "isSidechain")]
    pub(super) is_sidechain: LooseBool,
    #[serde(borrow)]
    pub(super) message: Loose<RawMessage<'a>>,
    #[serde(rename = "toolUseResult", borrow)]
    pub(super) tool_use_result: Loose<AgentRef<'a>>,
    #[serde(borrow)]
    pub(super) data: Loose<AgentRef<'a>>,
    #[serde(rename = "parentToolUseID", borrow)]
    pub(super) parent_tool_use_id: LooseStr<'a>,
}

impl<'a> RawLine<'a> {
    pub(super) fn assistant_usage(&self) -> Option<(&RawMessage<'a>, Usage)> {
        if !self.kind.is("assistant") {
            return None;
        }
        let message = self.message.0.as_ref()?;
        let usage = message.usage.0.as_ref()?;
        Some((
            message,
            Usage {
                input_tokens: usage.input_tokens.0,
                output_tokens: usage.output_tokens.0,
                cache_creation_input_tokens: usage.cache_creation_input_tokens.0,
                cache_read_input_tokens: usage.cache_read_input_tokens.0,
            },
        ))
    }
}

#[derive(Default, Deserialize)]
#[serde(default)]
pub(super) struct RawMessage<'a> {
    #[serde(borrow)]
    pub(super) id: LooseStr<'a>,
    #[serde(borrow)]
    pub(super) model: LooseStr<'a>,
    #[serde(borrow)]
    pub(super) content: LooseList<RawBlock<'a>>,
    pub(super) usage: Loose<RawUsage>,
}

#[derive(Default, Deserialize)]
#[serde(default)]
pub(super) struct RawUsage {
    input_tokens: LooseU64,
    output_tokens: LooseU64,
    cache_creation_input_tokens: LooseU64,
    cache_read_input_tokens: LooseU64,
}

#[derive(Default, Deserialize)]
#[serde(default)]
pub(super) struct RawBlock<'a> {
    #[serde(rename = "type", borrow)]
    pub(super) kind: LooseStr<'a>,
    #[serde(borrow)]
    pub(super) id: LooseStr<'a>,
    #[serde(borrow)]
    pub(super) name: LooseStr<'a>,
    #[serde(borrow)]
    pub(super) text: LooseStr<'a>,
    #[serde(borrow)]
    pub(super) tool_use_id: LooseStr<'a>,
    #[serde(borrow)]
    pub(super) input: Loose<RawInput<'a>>,
}

#[derive(Default, Deserialize)]
#[serde(default)]
pub(super) struct RawInput<'a> {
    #[serde(borrow)]
    pub(super) subagent_type: LooseStr<'a>,
    #[serde(borrow)]
    pub(super) description: LooseStr<'a>,
    #[serde(borrow)]
    pub(super) prompt: LooseStr<'a>,
    #[serde(borrow)]
    pub(super) name: LooseStr<'a>,
    #[serde(borrow)]
    pub(super) team_name: LooseStr<'a>,
    #[serde(borrow)]
    pub(super) file_path: LooseStr<'a>,
    #[serde(borrow)]
    pub(super) notebook_path: LooseStr<'a>,
}

#[derive(Default, Deserialize)]
#[serde(default)]
pub(super) struct AgentRef<'a> {
    #[serde(rename = "agentId", borrow)]
    pub(super) agent_id: LooseStr<'a>,
}

/// The top-level `type` of a line, parsing no further than that key: Claude Code
/// writes it before a progress or user line's body. `None` when the line has no
/// `type`, or is malformed before it.
pub(super) fn peek_kind(line: &[u8]) -> Option<String> {
    struct Peek<'s>(&'s mut Option<String>);

    impl<'de> Visitor<'de> for Peek<'_> {
        type Value = ();

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            while let Some(key) = map.next_key::<LooseStr>()? {
                if key.is("type") {
                    *self.0 = map.next_value::<LooseStr>()?.owned();
                    // Stop here: the rest of the line is not needed.
                    return Err(de::Error::custom("type found"));
                }
                map.next_value::<IgnoredAny>()?;
            }
            Ok(())
        }
    }

    let mut kind = None;
    let mut deserializer = serde_json::Deserializer::from_slice(line);
    // The error is how the visitor stops early, or a malformed line: `kind` says which.
    let _ = (&mut deserializer).deserialize_map(Peek(&mut kind));
    kind
}

/// A string, or `None` when absent or of another type.
#[derive(Default)]
pub(super) struct LooseStr<'a>(Option<Cow<'a, str>>);

impl LooseStr<'_> {
    pub(super) fn get(&self) -> Option<&str> {
        self.0.as_deref()
    }

    pub(super) fn owned(&self) -> Option<String> {
        self.get().map(str::to_owned)
    }

    pub(super) fn is(&self, expected: &str) -> bool {
        self.get() == Some(expected)
    }
}

/// `true` only when the value is JSON `true`.
#[derive(Default)]
pub(super) struct LooseBool(pub(super) bool);

/// A non-negative number, or 0.
#[derive(Default)]
pub(super) struct LooseU64(u64);

/// An object of shape `T`, or `None` when absent or not an object.
pub(super) struct Loose<T>(pub(super) Option<T>);

impl<T> Default for Loose<T> {
    fn default() -> Self {
        Loose(None)
    }
}

/// The elements of an array that are objects of shape `T`; empty for anything else.
pub(super) struct LooseList<T>(pub(super) Vec<T>);

impl<T> Default for LooseList<T> {
    fn default() -> Self {
        LooseList(Vec::new())
    }
}

/// A JSON value reduced to what the loose types keep of it.
enum Scalar<'a> {
    Str(Cow<'a, str>),
    Bool(bool),
    Number(u64),
    Other,
}

/// Visitor methods that consume a value of a type the visitor does not want, giving
/// the default.
macro_rules! default_on_scalars {
    () => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
    };
}

fn skip_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
    Ok(())
}

fn skip_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<IgnoredAny>()?.is_some() {}
    Ok(())
}

struct ScalarVisitor<'a>(PhantomData<&'a ()>);

impl<'de: 'a, 'a> Visitor<'de> for ScalarVisitor<'a> {
    type Value = Scalar<'a>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Scalar::Str(Cow::Borrowed(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Scalar::Str(Cow::Owned(v.to_owned())))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Scalar::Str(Cow::Owned(v)))
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Ok(Scalar::Bool(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Scalar::Number(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(u64::try_from(v).map_or(Scalar::Other, Scalar::Number))
    }
    // A finite non-negative f64 cast with `as` saturates at u64::MAX and drops only a
    // fraction; these are token counts, whole numbers far below 2^53.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Ok(if v.is_finite() && v >= 0.0 {
            Scalar::Number(v as u64)
        } else {
            Scalar::Other
        })
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Scalar::Other)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        skip_map(map).map(|()| Scalar::Other)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        skip_seq(seq).map(|()| Scalar::Other)
    }
}

fn deserialize_scalar<'de: 'a, 'a, D: Deserializer<'de>>(d: D) -> Result<Scalar<'a>, D::Error> {
    d.deserialize_any(ScalarVisitor(PhantomData))
}

impl<'de: 'a, 'a> Deserialize<'de> for LooseStr<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(LooseStr(match deserialize_scalar(d)? {
            Scalar::Str(s) => Some(s),
            _ => None,
        }))
    }
}

impl<'de> Deserialize<'de> for LooseBool {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(LooseBool(matches!(
            deserialize_scalar(d)?,
            Scalar::Bool(true)
        )))
    }
}

impl<'de> Deserialize<'de> for LooseU64 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(LooseU64(match deserialize_scalar(d)? {
            Scalar::Number(n) => n,
            _ => 0,
        }))
    }
}

struct ObjectVisitor<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for ObjectVisitor<T> {
    type Value = Loose<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    default_on_scalars!();
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        T::deserialize(de::value::MapAccessDeserializer::new(map)).map(|t| Loose(Some(t)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        skip_seq(seq).map(|()| Loose(None))
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Loose<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ObjectVisitor(PhantomData))
    }
}

struct ListVisitor<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for ListVisitor<T> {
    type Value = LooseList<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    default_on_scalars!();
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        skip_map(map).map(|()| LooseList(Vec::new()))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Loose<T>>()? {
            items.extend(item.0);
        }
        Ok(LooseList(items))
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for LooseList<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ListVisitor(PhantomData))
    }
}
