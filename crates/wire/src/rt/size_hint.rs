//! [`SizeHint`]: a cheap estimate of a value's serialised size, for one output buffer.

/// A cheap estimate of a value's serialised size, so that serialising a large history writes
/// into one buffer instead of growing (and copying) it repeatedly.
pub(crate) trait SizeHint {
    fn size_hint(&self) -> usize;
}

impl SizeHint for String {
    fn size_hint(&self) -> usize {
        // Quotes, and a little room for escapes.
        self.len() + self.len() / 16 + 2
    }
}

impl SizeHint for crate::RawJson {
    fn size_hint(&self) -> usize {
        self.get().len()
    }
}

impl SizeHint for crate::UnknownObject {
    fn size_hint(&self) -> usize {
        self.entries()
            .iter()
            .map(|(key, value)| key.len() + value.get().len() + 4)
            .sum::<usize>()
            + 2
    }
}

impl SizeHint for crate::Extra {
    fn size_hint(&self) -> usize {
        self.iter().map(|(key, value)| key.len() + value.get().len() + 4).sum()
    }
}

impl<T: SizeHint> SizeHint for Vec<T> {
    fn size_hint(&self) -> usize {
        self.iter().map(|item| item.size_hint() + 1).sum::<usize>() + 2
    }
}

impl<T: SizeHint> SizeHint for Box<T> {
    fn size_hint(&self) -> usize {
        T::size_hint(self)
    }
}

impl<T: SizeHint> SizeHint for Option<T> {
    fn size_hint(&self) -> usize {
        self.as_ref().map_or(4, SizeHint::size_hint)
    }
}

impl<T: SizeHint> SizeHint for crate::Field<T> {
    fn size_hint(&self) -> usize {
        self.get().map_or(4, SizeHint::size_hint)
    }
}

macro_rules! fixed_size_hint {
    ($($ty:ty => $size:expr),* $(,)?) => {$(
        impl SizeHint for $ty {
            fn size_hint(&self) -> usize {
                $size
            }
        }
    )*};
}

fixed_size_hint! {
    bool => 5,
    crate::Int => 12,
    crate::Float => 16,
    crate::Timestamp => 34,
    crate::Decimal => 12,
    crate::Duration => 12,
    crate::ForceDownload => 13,
    crate::LaxBool => 5,
}

impl SizeHint for crate::FileDigests {
    fn size_hint(&self) -> usize {
        match self {
            crate::FileDigests::List(digests) => 2 + digests.iter().map(|digest| digest.len() + 3).sum::<usize>(),
            crate::FileDigests::Other(raw) => raw.get().len(),
        }
    }
}

impl SizeHint for crate::Base64Data {
    fn size_hint(&self) -> usize {
        self.as_str().len() + 2
    }
}
