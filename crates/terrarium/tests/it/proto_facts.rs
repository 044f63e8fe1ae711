//! The protocol files in `proto/` against the published protocols, fact by fact: every
//! message field (number, label, type, oneof), enum value, reserved number and RPC of
//! `tfplugin6.proto` and `tfplugin5.proto` must match `proto/facts/*.facts`, which lists
//! those facts of Terraform's `docs/plugin-protocol/tfplugin6.proto` (6.11) and
//! `tfplugin5.proto` (5.10); `pulumi/*.proto` must match the facts of Pulumi's published
//! provider protocol (`pulumi.facts`, read from the PyPI `pulumi` wheel's compiled descriptors). A drift in either direction (a wrong number, a missing field, an
//! extra one) fails with the facts that differ.
//!
//! To refresh a facts file from a published proto (facts only; the file is not copied):
//! `TERRARIUM_PUBLISHED_PROTO=/path/tfplugin5.proto cargo test -p terrarium --test it
//! proto_facts::print_published -- --ignored --nocapture`, then drop the facts of what
//! Terrarium leaves out on purpose (protocol 5's Provisioner service and its messages).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use prost_types::field_descriptor_proto::{Label, Type};
use prost_types::{DescriptorProto, EnumDescriptorProto, FileDescriptorProto};

fn proto_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../proto")
}

/// The facts of one compiled `.proto` file, one line each, sorted.
fn facts_of(dir: &Path, file: &str) -> BTreeSet<String> {
    facts_of_files(dir, &[file])
}

/// The facts of several compiled `.proto` files together (one protocol split over files).
fn facts_of_files(dir: &Path, files: &[&str]) -> BTreeSet<String> {
    let set = protox::compile(files, [dir]).expect("the proto files compile");
    let mut facts = BTreeSet::new();
    for file in files {
        let proto = set.file.iter().find(|f| f.name() == *file).expect("the compiled file");
        file_facts(proto, &mut facts);
    }
    facts
}

fn file_facts(file: &FileDescriptorProto, facts: &mut BTreeSet<String>) {
    let package = file.package();
    for message in &file.message_type {
        message_facts(&format!("{package}.{}", message.name()), message, facts);
    }
    for e in &file.enum_type {
        enum_facts(&format!("{package}.{}", e.name()), e, facts);
    }
    for service in &file.service {
        for m in &service.method {
            let stream = |s: bool| if s { "stream " } else { "" };
            facts.insert(format!(
                "rpc {package}.{} {} {}{} -> {}{}",
                service.name(),
                m.name(),
                stream(m.client_streaming()),
                m.input_type().trim_start_matches('.'),
                stream(m.server_streaming()),
                m.output_type().trim_start_matches('.'),
            ));
        }
    }
}

fn message_facts(name: &str, message: &DescriptorProto, facts: &mut BTreeSet<String>) {
    for f in &message.field {
        let label = match f.label() {
            Label::Repeated => "repeated",
            _ if f.proto3_optional() => "optional",
            _ => "singular",
        };
        let ty = match f.r#type() {
            Type::Message | Type::Enum => f.type_name().trim_start_matches('.').to_string(),
            other => other.as_str_name().trim_start_matches("TYPE_").to_lowercase(),
        };
        // A proto3 `optional` is a synthetic oneof: its label says it already.
        let oneof = f
            .oneof_index
            .filter(|_| !f.proto3_optional())
            .and_then(|i| message.oneof_decl.get(i as usize))
            .map(|o| format!(" oneof {}", o.name()))
            .unwrap_or_default();
        facts.insert(format!("field {name} {} {} {label} {ty}{oneof}", f.name(), f.number()));
    }
    for r in &message.reserved_range {
        for n in r.start()..r.end() {
            facts.insert(format!("reserved {name} {n}"));
        }
    }
    for nested in &message.nested_type {
        message_facts(&format!("{name}.{}", nested.name()), nested, facts);
    }
    for e in &message.enum_type {
        enum_facts(&format!("{name}.{}", e.name()), e, facts);
    }
}

fn enum_facts(name: &str, e: &EnumDescriptorProto, facts: &mut BTreeSet<String>) {
    for v in &e.value {
        facts.insert(format!("enum {name} {} {}", v.name(), v.number()));
    }
}

/// The checked-in facts: one per line; `#` starts a comment.
fn published_facts(name: &str) -> BTreeSet<String> {
    let path = proto_dir().join("facts").join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

fn check(proto: &str, facts: &str) {
    check_files(&[proto], facts);
}

fn check_files(protos: &[&str], facts: &str) {
    let proto = protos.join(", ");
    let ours = facts_of_files(&proto_dir(), protos);
    let published = published_facts(facts);
    let missing: Vec<_> = published.difference(&ours).collect();
    let extra: Vec<_> = ours.difference(&published).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "proto/{proto} drifted from the published protocol.\nPublished, but not so in ours:\n  {}\nOurs, but not published:\n  {}",
        missing.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n  "),
        extra.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n  "),
    );
}

#[test]
fn tfplugin6_matches_the_published_protocol_field_by_field() {
    check("tfplugin6.proto", "tfplugin6.facts");
}

#[test]
fn tfplugin5_matches_the_published_protocol_field_by_field() {
    check("tfplugin5.proto", "tfplugin5.facts");
}

#[test]
fn pulumi_provider_matches_the_published_protocol_field_by_field() {
    check_files(
        &[
            "pulumi/provider.proto",
            "pulumi/plugin.proto",
            "pulumi/alias.proto",
            "pulumi/engine.proto",
        ],
        "pulumi.facts",
    );
}

#[test]
fn a_drifted_field_number_is_caught() {
    // The check itself must see a wrong number: protocol 5's GetMetadata actions as 9.
    let dir = tempfile::tempdir().expect("temporary directory");
    let ours = std::fs::read_to_string(proto_dir().join("tfplugin5.proto")).expect("tfplugin5");
    let drifted = ours
        .replace("repeated ActionMetadata actions = 8;", "repeated ActionMetadata actions = 9;");
    assert_ne!(drifted, ours, "the line to change is gone");
    std::fs::write(dir.path().join("tfplugin5.proto"), drifted).expect("write");
    let facts = facts_of(dir.path(), "tfplugin5.proto");
    let published = published_facts("tfplugin5.facts");
    let wrong = "field tfplugin5.GetMetadata.Response actions 9 repeated tfplugin5.GetMetadata.ActionMetadata";
    assert!(facts.contains(wrong) && !published.contains(wrong));
}

/// Prints the facts of a published proto (see the module documentation).
#[test]
#[ignore = "a tool: run with TERRARIUM_PUBLISHED_PROTO to refresh proto/facts"]
fn print_published() {
    let path = PathBuf::from(std::env::var("TERRARIUM_PUBLISHED_PROTO").expect("a path"));
    let dir = path.parent().expect("a directory");
    let file = path.file_name().and_then(|f| f.to_str()).expect("a file name");
    for fact in facts_of(dir, file) {
        println!("{fact}");
    }
}
