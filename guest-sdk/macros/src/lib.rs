//! Procedural macros for `terrarium-sdk`. Empty for now: the SDK needs none yet (a later
//! issue adds derives for schemas); the crate exists so that adding them changes no layout.
