//! `#[derive(Model)]` for `terrarium-sdk`: the schema of a resource, data source, provider
//! or nested object, from the Rust struct that holds its values. Use it through
//! `terrarium_sdk::Model`; the SDK's documentation describes the attributes.

#![forbid(unsafe_code)]

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as Tokens};
use quote::quote;
use syn::parse::ParseStream;
use syn::{
    Attribute, Data, DeriveInput, Expr, Fields, LitInt, LitStr, Path, Type, parse_macro_input,
};

/// Derives `terrarium_sdk::Model` and `terrarium_sdk::TfType` for a struct with named
/// fields. See `terrarium_sdk::typed` for the type mapping and the crate documentation for
/// the `#[tf(...)]` attributes.
#[proc_macro_derive(Model, attributes(tf))]
pub fn derive_model(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    match expand(&input) {
        Ok(tokens) => tokens.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// What `#[tf(...)]` says about a field.
#[derive(Default)]
struct FieldOptions {
    name: Option<String>,
    required: bool,
    optional: bool,
    computed: bool,
    sensitive: bool,
    write_only: bool,
    required_for_import: bool,
    optional_for_import: bool,
    deprecated: Option<String>,
    requires_replace: bool,
    requires_replace_if: Option<Path>,
    semantic_equality: Option<Path>,
    use_state_for_unknown: bool,
    unknown_on_update: bool,
    default: Option<Expr>,
    default_with: Option<Path>,
    validators: Vec<Expr>,
    ty: Option<Expr>,
    nested: bool,
    block: bool,
    group: bool,
    min_items: Option<LitInt>,
    max_items: Option<LitInt>,
    skip: bool,
    description: Option<String>,
    markdown: bool,
}

/// What `#[tf(...)]` says about the struct.
#[derive(Default)]
struct StructOptions {
    version: Option<LitInt>,
    deprecated: Option<String>,
    description: Option<String>,
}

fn doc_text(attrs: &[Attribute]) -> Option<String> {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        .map(|line| line.strip_prefix(' ').unwrap_or(&line).trim_end().to_string())
        .collect();
    // Paragraphs join into one text; line breaks inside a paragraph become spaces.
    let text = lines
        .split(|l| l.is_empty())
        .filter(|p| !p.is_empty())
        .map(|p| p.join(" "))
        .collect::<Vec<_>>()
        .join("\n\n");
    (!text.is_empty()).then_some(text)
}

fn lit_str(input: ParseStream<'_>) -> syn::Result<String> {
    Ok(input.parse::<LitStr>()?.value())
}

fn struct_options(attrs: &[Attribute]) -> syn::Result<StructOptions> {
    let mut o = StructOptions::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("tf")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("version") {
                o.version = Some(meta.value()?.parse()?);
            } else if meta.path.is_ident("deprecated") {
                o.deprecated = Some(lit_str(meta.value()?)?);
            } else if meta.path.is_ident("description") {
                o.description = Some(lit_str(meta.value()?)?);
            } else {
                return Err(meta
                    .error("expected version = N, deprecated = \"...\" or description = \"...\""));
            }
            Ok(())
        })?;
    }
    Ok(o)
}

fn field_options(attrs: &[Attribute]) -> syn::Result<FieldOptions> {
    let mut o = FieldOptions::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("tf")) {
        attr.parse_nested_meta(|meta| {
            let p = &meta.path;
            let flag = |name: &str| p.is_ident(name);
            if flag("required") {
                o.required = true;
            } else if flag("optional") {
                o.optional = true;
            } else if flag("computed") {
                o.computed = true;
            } else if flag("sensitive") {
                o.sensitive = true;
            } else if flag("write_only") {
                o.write_only = true;
            } else if flag("required_for_import") {
                o.required_for_import = true;
            } else if flag("optional_for_import") {
                o.optional_for_import = true;
            } else if flag("requires_replace") {
                o.requires_replace = true;
            } else if flag("use_state_for_unknown") || flag("keep_state_for_unknown") {
                o.use_state_for_unknown = true;
            } else if flag("unknown_on_update") {
                o.unknown_on_update = true;
            } else if flag("nested") {
                o.nested = true;
            } else if flag("block") {
                o.block = true;
            } else if flag("group") {
                o.block = true;
                o.group = true;
            } else if flag("skip") {
                o.skip = true;
            } else if flag("markdown") {
                o.markdown = true;
            } else if flag("deprecated") {
                o.deprecated = Some(lit_str(meta.value()?)?);
            } else if flag("name") {
                o.name = Some(lit_str(meta.value()?)?);
            } else if flag("description") {
                o.description = Some(lit_str(meta.value()?)?);
            } else if flag("default") {
                o.default = Some(meta.value()?.parse()?);
            } else if flag("default_with") {
                o.default_with = Some(meta.value()?.parse()?);
            } else if flag("semantic_equality") {
                o.semantic_equality = Some(meta.value()?.parse()?);
            } else if flag("requires_replace_if") {
                o.requires_replace_if = Some(meta.value()?.parse()?);
            } else if flag("validate") {
                o.validators.push(meta.value()?.parse()?);
            } else if flag("type") {
                o.ty = Some(meta.value()?.parse()?);
            } else if flag("min_items") {
                o.min_items = Some(meta.value()?.parse()?);
            } else if flag("max_items") {
                o.max_items = Some(meta.value()?.parse()?);
            } else {
                return Err(meta.error(
                    "unknown tf attribute; expected one of required, optional, computed, sensitive, write_only, \
                     required_for_import, optional_for_import, deprecated, requires_replace, requires_replace_if, semantic_equality, use_state_for_unknown, unknown_on_update, \
                     default, default_with, validate, type, nested, block, group, min_items, max_items, name, \
                     description, markdown, skip",
                ));
            }
            Ok(())
        })?;
    }
    Ok(o)
}

/// The outermost type name of a field type (`Option` for `Option<String>`).
fn outer_name(ty: &Type) -> Option<String> {
    match ty {
        Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

fn expand(input: &DeriveInput) -> syn::Result<Tokens> {
    let ident = &input.ident;
    let Data::Struct(data) = &input.data else {
        return Err(syn::Error::new(
            Span::call_site(),
            "Model can only be derived for structs with named fields",
        ));
    };
    let Fields::Named(fields) = &data.fields else {
        return Err(syn::Error::new(
            Span::call_site(),
            "Model can only be derived for structs with named fields",
        ));
    };
    let options = struct_options(&input.attrs)?;
    let sdk = quote!(::terrarium_sdk);

    let mut attributes = Vec::new();
    let mut blocks = Vec::new();
    let mut object_types = Vec::new();
    for field in &fields.named {
        let o = field_options(&field.attrs)?;
        if o.skip {
            continue;
        }
        let Some(field_ident) = &field.ident else { continue };
        let name = o
            .name
            .clone()
            .unwrap_or_else(|| field_ident.to_string().trim_start_matches("r#").to_string());
        let ty = &field.ty;
        let description = o.description.clone().or_else(|| doc_text(&field.attrs));
        let describe = description.map(|d| {
            if o.markdown { quote!(.markdown_description(#d)) } else { quote!(.description(#d)) }
        });
        let deprecated = o.deprecated.as_ref().map(|m| quote!(.deprecated(#m)));

        if o.block {
            let nesting = if o.group {
                quote!(#sdk::typed::__BlockNesting::Group)
            } else {
                quote!(<#ty as #sdk::Nest>::NESTING)
            };
            let min = o.min_items.as_ref().map(|n| quote!(.min_items(#n)));
            let max = o.max_items.as_ref().map(|n| quote!(.max_items(#n)));
            let replace = o.requires_replace.then(|| quote!(.requires_replace()));
            let computed = o.computed.then(|| quote!(.computed()));
            let mut block = quote!(#sdk::schema::Block::new());
            block = quote!(<<#ty as #sdk::Nest>::Object as #sdk::Model>::attributes()
                .into_iter()
                .fold(#block, #sdk::schema::Block::attribute));
            block = quote!(<<#ty as #sdk::Nest>::Object as #sdk::Model>::blocks()
                .into_iter()
                .fold(#block, #sdk::schema::Block::block) #describe #deprecated);
            blocks.push(
                quote!(#sdk::schema::NestedBlock::new(#name, #nesting, #block) #min #max #replace #computed),
            );
            object_types
                .push(quote!((#name, <#ty as #sdk::typed::__BlockType>::block_type(#nesting))));
            continue;
        }

        let mut attribute = if o.nested {
            quote!(#sdk::schema::Attribute::nested(
                #name,
                #sdk::typed::__object_nesting(<#ty as #sdk::Nest>::NESTING),
                <<#ty as #sdk::Nest>::Object as #sdk::Model>::attributes(),
            ))
        } else if let Some(t) = &o.ty {
            quote!(#sdk::schema::Attribute::new(#name, #t))
        } else {
            quote!(#sdk::schema::Attribute::new(#name, <#ty as #sdk::TfType>::tf_type()))
        };
        // Unless told, a field that can hold null (`Option`, `Attr`, or an alias of one) is
        // optional and any other required; the Rust type decides, through `TfType`.
        let (mut required, mut optional, computed) = (o.required, o.optional, o.computed);
        let mut presence = None;
        if !required && !optional && !computed && o.default.is_none() && o.default_with.is_none() {
            if o.ty.is_some() {
                match outer_name(ty).as_deref() {
                    Some("Option" | "Attr") => optional = true,
                    _ => required = true,
                }
            } else {
                presence = Some(quote!(.presence(<#ty as #sdk::TfType>::NULLABLE)));
            }
        }
        if o.default.is_some() || o.default_with.is_some() {
            // A default is planned when the configuration is silent: optional and computed.
            optional = true;
            required = false;
        }
        if let Some(p) = presence {
            attribute = quote!(#attribute #p);
        }
        let computed = computed || o.default.is_some() || o.default_with.is_some();
        for (on, method) in [
            (required, quote!(required)),
            (optional, quote!(optional)),
            (computed, quote!(computed)),
            (o.sensitive, quote!(sensitive)),
            (o.write_only, quote!(write_only)),
            (o.required_for_import, quote!(required_for_import)),
            (o.optional_for_import, quote!(optional_for_import)),
            (o.requires_replace, quote!(requires_replace)),
            (o.use_state_for_unknown, quote!(use_state_for_unknown)),
            (o.unknown_on_update, quote!(unknown_on_update)),
        ] {
            if on {
                attribute = quote!(#attribute.#method());
            }
        }
        if let Some(d) = &o.default {
            attribute = quote!(#sdk::schema::DefaultOf::default_of(#attribute, &(#d)));
        }
        if let Some(f) = &o.default_with {
            attribute = quote!(#attribute.default_with(#f));
        }
        if let Some(f) = &o.semantic_equality {
            attribute = quote!(#attribute.semantic_equality(#f));
        }
        if let Some(f) = &o.requires_replace_if {
            attribute = quote!(#attribute.requires_replace_if(#f));
        }
        for v in &o.validators {
            attribute = quote!(#attribute.validate({
                #[allow(unused_imports)]
                use #sdk::validate::*;
                #v
            }));
        }
        attributes.push(quote!(#attribute #describe #deprecated));
        let attribute_ty = match (&o.ty, o.nested) {
            (Some(t), _) => quote!(#t),
            (None, true) => {
                quote!(<#ty as #sdk::typed::__BlockType>::block_type(<#ty as #sdk::Nest>::NESTING))
            }
            (None, false) => quote!(<#ty as #sdk::TfType>::tf_type()),
        };
        object_types.push(quote!((#name, #attribute_ty)));
    }

    let struct_description = options.description.clone().or_else(|| doc_text(&input.attrs));
    let mut schema = quote!(#sdk::schema::Schema::new());
    if let Some(v) = &options.version {
        schema = quote!(#schema.version(#v));
    }
    if let Some(d) = &struct_description {
        schema = quote!(#schema.description(#d));
    }
    if let Some(m) = &options.deprecated {
        schema = quote!(#schema.deprecated(#m));
    }
    let (impl_generics, type_generics, where_clause) = input.generics.split_for_impl();
    Ok(quote! {
        impl #impl_generics #sdk::Model for #ident #type_generics #where_clause {
            fn attributes() -> ::std::vec::Vec<#sdk::schema::Attribute> {
                ::std::vec![#(#attributes),*]
            }
            fn blocks() -> ::std::vec::Vec<#sdk::schema::NestedBlock> {
                ::std::vec![#(#blocks),*]
            }
            fn schema() -> #sdk::schema::Schema {
                let schema = <Self as #sdk::Model>::attributes().into_iter().fold(#schema, #sdk::schema::Schema::attribute);
                schema.blocks(<Self as #sdk::Model>::blocks())
            }
        }
        impl #impl_generics #sdk::TfType for #ident #type_generics #where_clause {
            fn tf_type() -> #sdk::Type {
                #sdk::Type::object([#(#object_types),*])
            }
        }
        impl #impl_generics #sdk::Nest for #ident #type_generics #where_clause {
            type Object = Self;
            const NESTING: #sdk::typed::__BlockNesting = #sdk::typed::__BlockNesting::Single;
        }
    })
}
