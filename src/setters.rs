//! The `setters!` macro, which writes the `with_` builder setters of the option structs:
//! the ladder's [`Options`](crate::Options) and [`Settings`](crate::Settings),
//! and the engine's options (`stream::EngineOptions`). It is declared here, below every
//! layer, so that each layer uses the one macro.

/// Writes one `with_` setter per field: `with_field(value)` returns the options with
/// `field` set to `value`.
macro_rules! setters {
    ($ty:ident { $($field:ident: $t:ty => $with:ident),* $(,)? }) => {
        impl $ty {
            $(
                #[doc = concat!("These options with `", stringify!($field), "` set.")]
                #[must_use]
                pub fn $with(mut self, $field: $t) -> Self {
                    self.$field = $field;
                    self
                }
            )*
        }
    };
}
