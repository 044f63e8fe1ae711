//! Pulumi's names for Terraform's: properties in camelCase (`min_length` is `minLength`),
//! types and functions as tokens `PACKAGE:index/member:Name`.
//!
//! The rules are pulumi-terraform-bridge's defaults, so a program written for a bridged provider
//! reads the same: the provider's type prefix (`random_` in `random_string`) is dropped, every
//! type lives in the `index` module, resources are `PACKAGE:index/string:String`, data sources
//! `PACKAGE:index/getShuffle:getShuffle`. Where two attributes of one object would get the same
//! camelCase name, both keep their Terraform names (the bridge refuses such a schema; keeping
//! the names is lossless and still reachable).

use std::collections::BTreeMap;

/// `min_length` -> `minLength`, as the bridge cases names: underscores between words go and
/// the ASCII letter after them is upper-cased; leading underscores stay (`_private`), a
/// trailing one stays one (`end__` -> `end_`); names without underscores stay as they are.
pub fn camel_case(snake: &str) -> String {
    let mut out = String::with_capacity(snake.len());
    let mut started = false;
    let mut upper_next = false;
    for c in snake.chars() {
        if c == '_' && started {
            upper_next = true;
            continue;
        }
        started |= c != '_';
        out.push(if upper_next { c.to_ascii_uppercase() } else { c });
        upper_next = false;
    }
    if upper_next {
        out.push('_');
    }
    out
}

/// `minLength` -> `min_length`: [`camel_case`] undone for a name no schema knows any more
/// (an attribute an older version of the provider had), as the bridge guesses it.
pub fn snake_case(camel: &str) -> String {
    let mut out = String::with_capacity(camel.len() + 4);
    for (i, c) in camel.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// `min_length` -> `MinLength`.
pub fn pascal_case(snake: &str) -> String {
    let camel = camel_case(snake);
    let mut chars = camel.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The property names of one object: Terraform attribute name <-> Pulumi property name.
#[derive(Clone, Debug, Default)]
pub struct PropertyNames {
    to_pulumi: BTreeMap<String, String>,
    to_terraform: BTreeMap<String, String>,
}

impl PropertyNames {
    pub fn new<'a>(attributes: impl IntoIterator<Item = &'a str>) -> Self {
        let attributes: Vec<&str> = attributes.into_iter().collect();
        let mut count: BTreeMap<String, usize> = BTreeMap::new();
        for a in &attributes {
            *count.entry(camel_case(a)).or_default() += 1;
        }
        let mut names = PropertyNames::default();
        for a in attributes {
            let camel = camel_case(a);
            let pulumi = if count[&camel] > 1 { a.to_string() } else { camel };
            names.to_terraform.insert(pulumi.clone(), a.to_string());
            names.to_pulumi.insert(a.to_string(), pulumi);
        }
        names
    }

    pub fn pulumi(&self, terraform: &str) -> String {
        self.to_pulumi.get(terraform).cloned().unwrap_or_else(|| terraform.to_string())
    }

    pub fn terraform(&self, pulumi: &str) -> Option<&str> {
        self.to_terraform.get(pulumi).map(String::as_str)
    }
}

/// What a token names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Member {
    Resource(String),
    DataSource(String),
    Function(String),
}

impl std::fmt::Display for Member {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Member::Resource(name) => write!(f, "resource type {name:?}"),
            Member::DataSource(name) => write!(f, "data source {name:?}"),
            Member::Function(name) => write!(f, "function {name:?}"),
        }
    }
}

/// The tokens of one package: every resource type, data source and function of the schema.
#[derive(Clone, Debug, Default)]
pub struct Tokens {
    package: String,
    by_token: BTreeMap<String, Member>,
    resources: BTreeMap<String, String>,
    data_sources: BTreeMap<String, String>,
    functions: BTreeMap<String, String>,
}

/// Two members of the schema that would get one token, so that Pulumi could reach only one
/// of them.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "the {first} and the {second} would both be Pulumi's {token:?}, so one of them could not be \
     reached; rename one of them in the provider (tokens drop the provider's `NAME_` prefix and \
     camel-case the rest, so `a_b`, `a__b` and `aB` are one name)"
)]
pub struct TokenCollision {
    pub token: String,
    /// What took the token first: `resource type "h2_a_b"`.
    pub first: String,
    /// What would take it as well.
    pub second: String,
}

impl Tokens {
    /// The tokens of every member; an error when two members would get one token.
    pub fn new<'a>(
        package: &str,
        resources: impl IntoIterator<Item = &'a String>,
        data_sources: impl IntoIterator<Item = &'a String>,
        functions: impl IntoIterator<Item = &'a String>,
    ) -> Result<Self, TokenCollision> {
        let mut tokens = Tokens { package: package.to_string(), ..Tokens::default() };
        for r in resources {
            let base = strip_prefix(package, r);
            let token = format!("{package}:index/{}:{}", camel_case(base), pascal_case(base));
            tokens.claim(&token, Member::Resource(r.clone()))?;
            tokens.resources.insert(r.clone(), token);
        }
        for d in data_sources {
            let name = camel_case(&format!("get_{}", strip_prefix(package, d)));
            let token = format!("{package}:index/{name}:{name}");
            tokens.claim(&token, Member::DataSource(d.clone()))?;
            tokens.data_sources.insert(d.clone(), token);
        }
        for f in functions {
            let name = camel_case(f);
            let token = format!("{package}:index/{name}:{name}");
            tokens.claim(&token, Member::Function(f.clone()))?;
            tokens.functions.insert(f.clone(), token);
        }
        Ok(tokens)
    }

    /// Gives `token` to `member`, unless another member has it.
    fn claim(&mut self, token: &str, member: Member) -> Result<(), TokenCollision> {
        match self.by_token.get(token) {
            Some(first) => Err(TokenCollision {
                token: token.to_string(),
                first: first.to_string(),
                second: member.to_string(),
            }),
            None => {
                self.by_token.insert(token.to_string(), member);
                Ok(())
            }
        }
    }

    pub fn package(&self) -> &str {
        &self.package
    }

    pub fn member(&self, token: &str) -> Option<&Member> {
        self.by_token.get(token)
    }

    pub fn resource(&self, name: &str) -> Option<&str> {
        self.resources.get(name).map(String::as_str)
    }

    pub fn data_source(&self, name: &str) -> Option<&str> {
        self.data_sources.get(name).map(String::as_str)
    }

    pub fn function(&self, name: &str) -> Option<&str> {
        self.functions.get(name).map(String::as_str)
    }

    /// Every token of the given kind, for error messages.
    pub fn known(&self, resource: bool) -> Vec<&str> {
        self.by_token
            .iter()
            .filter(|(_, m)| matches!(m, Member::Resource(_)) == resource)
            .map(|(t, _)| t.as_str())
            .collect()
    }
}

fn strip_prefix<'a>(package: &str, type_name: &'a str) -> &'a str {
    type_name
        .strip_prefix(package)
        .and_then(|rest| rest.strip_prefix('_'))
        .filter(|rest| !rest.is_empty())
        .unwrap_or(type_name)
}

/// The resource name at the end of a URN (`urn:pulumi:stack::project::type::name`).
pub fn urn_name(urn: &str) -> &str {
    urn.rsplit("::").next().unwrap_or(urn)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake_case_becomes_camel_case() {
        assert_eq!(camel_case("min_length"), "minLength");
        assert_eq!(camel_case("uuid_v5"), "uuidV5");
        assert_eq!(camel_case("length"), "length");
        assert_eq!(camel_case("_private"), "_private");
        assert_eq!(camel_case("__private_key"), "__privateKey");
        assert_eq!(camel_case("double__under"), "doubleUnder");
        assert_eq!(camel_case("end__"), "end_");
        assert_eq!(camel_case("v_2"), "v2");
        assert_eq!(camel_case("größe_ähnlich"), "größeähnlich");
        assert_eq!(pascal_case("password"), "Password");
    }

    #[test]
    fn camel_case_goes_back_to_snake_case() {
        assert_eq!(snake_case("minLength"), "min_length");
        assert_eq!(snake_case("bootSeconds"), "boot_seconds");
        assert_eq!(snake_case("length"), "length");
        assert_eq!(snake_case(&camel_case("content_sha256")), "content_sha256");
    }

    #[test]
    fn colliding_names_keep_their_terraform_names() {
        let names = PropertyNames::new(["min_length", "minLength", "other_name"]);
        assert_eq!(names.pulumi("min_length"), "min_length");
        assert_eq!(names.pulumi("minLength"), "minLength");
        assert_eq!(names.pulumi("other_name"), "otherName");
        assert_eq!(names.terraform("otherName"), Some("other_name"));
        assert_eq!(names.terraform("other_name"), None);
    }

    #[test]
    fn tokens_drop_the_provider_prefix() {
        let r = vec!["random_string".to_string(), "random_password".to_string()];
        let d = vec!["random_shuffle".to_string()];
        let f = vec!["uuid_v5".to_string()];
        let tokens = Tokens::new("random", &r, &d, &f).unwrap();
        assert_eq!(tokens.resource("random_string"), Some("random:index/string:String"));
        assert_eq!(
            tokens.data_source("random_shuffle"),
            Some("random:index/getShuffle:getShuffle")
        );
        assert_eq!(tokens.function("uuid_v5"), Some("random:index/uuidV5:uuidV5"));
        assert_eq!(
            tokens.member("random:index/password:Password"),
            Some(&Member::Resource("random_password".into()))
        );
        assert_eq!(urn_name("urn:pulumi:dev::proj::random:index/string:String::pw"), "pw");
    }

    #[test]
    fn types_whose_tokens_collide_are_an_error_naming_both() {
        let r: Vec<String> = ["h2_a_b", "h2_aB"].map(String::from).to_vec();
        let err = Tokens::new("h2", &r, &[], &[]).unwrap_err();
        assert_eq!(err.token, "h2:index/aB:AB");
        assert_eq!(
            (err.first.as_str(), err.second.as_str()),
            (r#"resource type "h2_a_b""#, r#"resource type "h2_aB""#)
        );
        let message = err.to_string();
        assert!(
            message.contains(r#"the resource type "h2_a_b" and the resource type "h2_aB""#),
            "{message}"
        );
        let r = vec!["h2_a__b".to_string()];
        assert!(
            Tokens::new("h2", &r, &["h2_a_b".to_string()], &[]).is_ok(),
            "a data source is getAB"
        );
        let d = vec!["h2_a_b".to_string(), "h2_a__b".to_string()];
        let err = Tokens::new("h2", &[], &d, &[]).unwrap_err();
        assert_eq!(err.token, "h2:index/getAB:getAB");
        // A function and a data source: `get_a_b` and `h2_a_b`.
        let err =
            Tokens::new("h2", &[], &["h2_a_b".to_string()], &["get_a_b".to_string()]).unwrap_err();
        assert_eq!(err.second, r#"function "get_a_b""#);
    }
}
