//! `terrarium-provider`: the executable `terrarium install` and `terrarium package` put beside a
//! provider's component, as `terraform-provider-<type>_v<version>` or `pulumi-resource-<name>`.
//! It only serves; built alone (`cargo build -p terrarium --no-default-features --bin
//! terrarium-provider`) it links nothing the author's commands need.

fn main() -> std::process::ExitCode {
    match terrarium::served_main() {
        Ok(code) => code,
        Err(err) => {
            eprintln!("terrarium-provider: {err:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
