//! The `provider_installation` block `terrarium install` prints for Terraform's CLI
//! configuration.

use std::path::Path;

use super::ProviderSource;

/// The `provider_installation` block that makes Terraform take `source` from `mirror` and
/// everything else from where it normally would.
pub fn cli_config_block(mirror: &Path, source: &ProviderSource) -> String {
    let path = hcl_quote(&mirror.to_string_lossy());
    let address = hcl_quote(&source.to_string());
    format!(
        "provider_installation {{\n  \
           filesystem_mirror {{\n    path    = {path}\n    include = [{address}]\n  }}\n  \
           direct {{\n    exclude = [{address}]\n  }}\n\
         }}\n"
    )
}

/// A string literal for the CLI config file. Terraform parses that file as HCL 1, where only
/// backslash escapes are special (`${` is literal there, unlike in HCL 2 configurations).
pub(super) fn hcl_quote(text: &str) -> String {
    let mut quoted = String::with_capacity(text.len() + 2);
    quoted.push('"');
    for c in text.chars() {
        match c {
            '"' => quoted.push_str("\\\""),
            '\\' => quoted.push_str("\\\\"),
            '\n' => quoted.push_str("\\n"),
            '\r' => quoted.push_str("\\r"),
            '\t' => quoted.push_str("\\t"),
            c => quoted.push(c),
        }
    }
    quoted.push('"');
    quoted
}
