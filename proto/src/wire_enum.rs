//! `wire_enum!`: a field-less enum of wire values and its conversions, in the spirit of smoltcp's
//! `enum_with_unknown!`.

/// Declares a field-less enum whose discriminants are wire values, and one inherent `impl` with
/// the helpers its `impl` section lists, in the order listed.
///
/// The enum passes through unchanged: its doc comments and attributes (including `#[repr(..)]`)
/// and each variant's. Every discriminant must be a literal: it is also the decoder's pattern.
/// Each helper is written as its signature, with its doc comments, ending in `;`:
///
/// - `const ALL: [Name; N];`: every variant, in declaration order (the compiler checks `N`);
/// - `[const] fn name(arg: T) -> Option<Self>;`: the variant whose discriminant is `arg`, if any;
/// - `const fn name(self) -> T;`: the discriminant, `self as T`.
///
/// ```text
/// wire_enum! {
///     /// Doc.
///     #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
///     #[repr(u8)]
///     pub enum Code {
///         /// Doc.
///         A = 0x01,
///         /// Doc.
///         B = 0x03,
///     }
///
///     impl Code {
///         /// Doc.
///         pub const ALL: [Code; 2];
///         /// Doc.
///         pub const fn from_u8(value: u8) -> Option<Self>;
///         /// Doc.
///         pub const fn value(self) -> u8;
///     }
/// }
/// ```
///
/// Other methods go in an `impl` block of their own.
macro_rules! wire_enum {
    (
        $(#[$attr:meta])*
        $vis:vis enum $name:ident {
            $(
                $(#[$variant_attr:meta])*
                $variant:ident = $value:literal
            ),+ $(,)?
        }

        impl $impl_name:ident {
            $($helpers:tt)*
        }
    ) => {
        $(#[$attr])*
        $vis enum $name {
            $(
                $(#[$variant_attr])*
                $variant = $value,
            )+
        }

        wire_enum!(@impl $impl_name [$($variant = $value),+] {} $($helpers)*);
    };

    // Every helper generated: emit the `impl`.
    (@impl $name:ident [$($variant:ident = $value:literal),+] { $($done:tt)* }) => {
        impl $name {
            $($done)*
        }
    };

    // `const ALL: [Name; N];`
    (
        @impl $name:ident [$($variant:ident = $value:literal),+] { $($done:tt)* }
        $(#[$attr:meta])* $vis:vis const ALL: $ty:ty;
        $($rest:tt)*
    ) => {
        wire_enum!(@impl $name [$($variant = $value),+] {
            $($done)*
            $(#[$attr])*
            $vis const ALL: $ty = [$(Self::$variant),+];
        } $($rest)*);
    };

    // `const fn name(self) -> T;`: the discriminant.
    (
        @impl $name:ident [$($variant:ident = $value:literal),+] { $($done:tt)* }
        $(#[$attr:meta])* $vis:vis const fn $fn:ident(self) -> $ty:ty;
        $($rest:tt)*
    ) => {
        wire_enum!(@impl $name [$($variant = $value),+] {
            $($done)*
            $(#[$attr])*
            $vis const fn $fn(self) -> $ty {
                self as $ty
            }
        } $($rest)*);
    };

    // `const fn name(arg: T) -> Option<Self>;`: the decoder.
    (
        @impl $name:ident [$($variant:ident = $value:literal),+] { $($done:tt)* }
        $(#[$attr:meta])* $vis:vis const fn $fn:ident($arg:ident: $ty:ty) -> $ret:ty;
        $($rest:tt)*
    ) => {
        wire_enum!(@impl $name [$($variant = $value),+] {
            $($done)*
            $(#[$attr])*
            $vis const fn $fn($arg: $ty) -> $ret {
                match $arg {
                    $($value => Some(Self::$variant),)+
                    _ => None,
                }
            }
        } $($rest)*);
    };

    // `fn name(arg: T) -> Option<Self>;`: the decoder, not `const`.
    (
        @impl $name:ident [$($variant:ident = $value:literal),+] { $($done:tt)* }
        $(#[$attr:meta])* $vis:vis fn $fn:ident($arg:ident: $ty:ty) -> $ret:ty;
        $($rest:tt)*
    ) => {
        wire_enum!(@impl $name [$($variant = $value),+] {
            $($done)*
            $(#[$attr])*
            $vis fn $fn($arg: $ty) -> $ret {
                match $arg {
                    $($value => Some(Self::$variant),)+
                    _ => None,
                }
            }
        } $($rest)*);
    };
}

#[cfg(test)]
mod tests {
    wire_enum! {
        /// Sparse values, every helper.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        #[repr(u8)]
        enum Sparse {
            /// First.
            A = 0x01,
            /// Second.
            B = 0x09,
            /// Last.
            C = 0xFF,
        }

        impl Sparse {
            /// Every variant.
            const ALL: [Sparse; 3];
            /// Const decoder.
            const fn from_u8(value: u8) -> Option<Self>;
            /// Accessor.
            const fn value(self) -> u8;
            /// Non-const decoder.
            fn from_code(code: u8) -> Option<Sparse>;
        }
    }

    #[test]
    fn helpers() {
        assert_eq!(Sparse::ALL, [Sparse::A, Sparse::B, Sparse::C]);
        for v in 0..=u8::MAX {
            let expected = Sparse::ALL.iter().copied().find(|s| s.value() == v);
            assert_eq!(Sparse::from_u8(v), expected);
            assert_eq!(Sparse::from_code(v), expected);
        }
        assert_eq!(Sparse::C.value(), 0xFF);
    }
}
