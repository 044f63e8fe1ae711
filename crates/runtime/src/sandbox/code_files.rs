//! What a component may never write, whatever it was granted: files that a client later runs
//! or reads as code or configuration.
//!
//! Directory grants are checked against the places such files live (`dirs`, and the protected
//! paths each command knows), but a list of places is never complete: a local module's
//! directory, a `TF_DATA_DIR` elsewhere, a mirror installed after the grant was given. So the
//! file system itself refuses the class: a guest cannot create, open for writing, rename onto
//! or link to a name that Terraform, OpenTofu or Pulumi reads as code or configuration, nor
//! write to, move or link an executable file (`runtime::fs_guard` applies these rules to every
//! WASI call that could).

/// Why a name is refused, for the diagnostic and the log: which rule, in words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodeName {
    /// What a client does with such a file.
    pub rule: &'static str,
}

const TERRAFORM_CONFIGURATION: &str = "Terraform and OpenTofu read it as configuration \
     (*.tf, *.tf.json, *.tofu, *.tfvars, *.tftest.hcl, ...), and a configuration can run \
     commands through provisioners";
const CLI_CONFIGURATION: &str = "Terraform and OpenTofu read it as CLI configuration or a lock \
     file, which decide which provider executables run";
const MODULES_MANIFEST: &str = "Terraform and OpenTofu read modules.json to decide which \
     directories hold the modules they load";
const PROVIDER_EXECUTABLE: &str = "Terraform, OpenTofu and Pulumi run files of that name as \
     provider or plugin executables, outside any sandbox";
const PULUMI_PROJECT: &str = "Pulumi reads it as a project, stack or plugin definition, which \
     names the programs and plugins it runs";
const PLUGIN_DIRECTORY: &str = "Terraform and OpenTofu take provider executables and modules \
     from directories of that name";

/// Suffixes (compared without regard to case) of files Terraform and OpenTofu load as
/// configuration, test, query or variable files.
const CONFIGURATION_SUFFIXES: &[&str] = &[
    ".tf",
    ".tf.json",
    ".tofu",
    ".tofu.json",
    ".tfvars",
    ".tfvars.json",
    ".tftest.hcl",
    ".tftest.json",
    ".tofutest.hcl",
    ".tofutest.json",
    ".tfquery.hcl",
    ".tfquery.json",
    ".tfmock.hcl",
    ".tfmock.json",
    ".tfstack.hcl",
    ".tfdeploy.hcl",
    ".tfcomponent.hcl",
    ".tfaction.hcl",
];

/// Whether a guest may create or write a file named `name` (the last component of the path
/// it gave; a path with directories is judged by its last component). `None` when it may.
pub fn refused_file_name(name: &str) -> Option<CodeName> {
    let name = name.trim_end_matches('/');
    let name = name.rsplit('/').next().unwrap_or(name);
    let lower = name.to_ascii_lowercase();
    let rule = if CONFIGURATION_SUFFIXES.iter().any(|s| lower.ends_with(s)) {
        TERRAFORM_CONFIGURATION
    } else if lower.ends_with(".tfrc")
        || matches!(lower.as_str(), ".terraformrc" | "terraform.rc" | ".tofurc" | "tofu.rc")
        || lower == ".terraform.lock.hcl"
    {
        CLI_CONFIGURATION
    } else if lower == "modules.json" {
        MODULES_MANIFEST
    } else if ["terraform-provider-", "pulumi-resource-", "pulumi-language-", "pulumi-analyzer-"]
        .iter()
        .chain(&["pulumi-converter-", "pulumi-tool-", "pulumi-policy-"])
        .any(|p| lower.starts_with(p))
    {
        PROVIDER_EXECUTABLE
    } else if lower == "pulumi.yaml"
        || lower == "pulumi.yml"
        || lower == "pulumi.json"
        || lower == "pulumiplugin.yaml"
        || lower == "pulumiplugin.yml"
        || lower == "pulumiplugin.json"
        || (lower.starts_with("pulumi.")
            && (lower.ends_with(".yaml") || lower.ends_with(".yml") || lower.ends_with(".json")))
    {
        PULUMI_PROJECT
    } else {
        return None;
    };
    Some(CodeName { rule })
}

/// Whether a guest may create a directory named `name`: not one a client searches for
/// providers or modules (`.terraform`, `terraform.d`, `.terraform.d`). `None` when it may.
pub fn refused_directory_name(name: &str) -> Option<CodeName> {
    let name = name.trim_end_matches('/');
    let name = name.rsplit('/').next().unwrap_or(name);
    matches!(name.to_ascii_lowercase().as_str(), ".terraform" | "terraform.d" | ".terraform.d")
        .then_some(CodeName { rule: PLUGIN_DIRECTORY })
}

/// What the rules of this module protect, for the diagnostic of a refusal.
pub const EXPLANATION: &str = "A provider component may never write, move or link what \
     Terraform, OpenTofu or Pulumi later runs or reads as code or configuration, whatever \
     directories it was granted (Terrarium's docs/security.md lists the rule); no grant allows it.";

/// The rule for executables, for messages: a guest never writes to, moves or links a file
/// with an execute bit (it cannot set one: WASI has no call that changes permissions).
pub const EXECUTABLE_RULE: &str = "it is executable, and a component may never change, move or \
     link what a client runs natively";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configuration_plugins_and_projects_are_refused_by_name() {
        for name in [
            "main.tf",
            "MAIN.TF",
            "x.tf.json",
            "a/b/c.tofu",
            "prod.auto.tfvars",
            "t.tftest.hcl",
            "q.tfquery.hcl",
            ".terraform.lock.hcl",
            ".terraformrc",
            "dev.tfrc",
            "tofu.rc",
            "modules.json",
            "terraform-provider-evil_v1.0.0",
            "pulumi-resource-x",
            "Pulumi.yaml",
            "Pulumi.dev.yaml",
            "PulumiPlugin.yaml",
        ] {
            assert!(refused_file_name(name).is_some(), "{name}");
        }
        for name in ["notes.txt", "tf", "main.tfx", "data.json", "terraform.tfstate", "pulumi"] {
            assert!(refused_file_name(name).is_none(), "{name}");
        }
        for name in [".terraform", "sub/terraform.d", ".Terraform.d/"] {
            assert!(refused_directory_name(name).is_some(), "{name}");
        }
        assert!(refused_directory_name("modules").is_none());
    }
}
