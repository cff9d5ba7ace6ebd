//! Prebuilt packages per platform, the napi-rs layout: a package `<name>` lists
//! `<name>-<platform>` in its `optionalDependencies` for each platform of `package.platforms`, and
//! each of those packages (written to `npm/<platform>/`) declares the `os`, `cpu` and `libc` npm
//! installs it on and carries the library in its `lib/`. The support package finds it at load
//! time (bindings/node/lib/platform.js spells the platforms the same way).

/// The operating systems a platform may name (`process.platform`), with the ABI suffix each takes:
/// Linux names its C library, Windows its ABI, the others nothing.
const OSES: &[(&str, &[&str])] = &[
    ("linux", &["gnu", "musl"]),
    ("win32", &["msvc"]),
    ("darwin", &[]),
    ("freebsd", &[]),
];

/// The CPUs a platform may name (`process.arch`).
const CPUS: &[&str] = &[
    "x64", "arm64", "arm", "ia32", "ppc64", "s390x", "riscv64", "loong64",
];

/// One platform, e.g. `linux-x64-gnu`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Platform {
    /// As written: `linux-x64-gnu`.
    pub name: String,
    /// npm's `os`: `linux`.
    pub os: String,
    /// npm's `cpu`: `x64`.
    pub cpu: String,
    /// npm's `libc` (Linux only): `glibc` or `musl`.
    pub libc: Option<String>,
}

impl Platform {
    /// Parses `os-cpu[-abi]`; the error lists what is accepted.
    pub fn parse(name: &str) -> Result<Platform, String> {
        let accepted = || {
            let examples: Vec<String> = OSES
                .iter()
                .map(|(os, abis)| match abis {
                    [] => format!("{os}-<cpu>"),
                    _ => format!("{os}-<cpu>-{}", abis.join("|")),
                })
                .collect();
            format!(
                "platform `{name}` is not one of {} with <cpu> one of {}",
                examples.join(", "),
                CPUS.join(", ")
            )
        };
        let parts: Vec<&str> = name.split('-').collect();
        let (os, cpu, abi) = match parts[..] {
            [os, cpu] => (os, cpu, None),
            [os, cpu, abi] => (os, cpu, Some(abi)),
            _ => return Err(accepted()),
        };
        let Some((_, abis)) = OSES.iter().find(|(o, _)| *o == os) else {
            return Err(accepted());
        };
        let abi_ok = match abi {
            Some(abi) => abis.contains(&abi),
            None => abis.is_empty(),
        };
        if !CPUS.contains(&cpu) || !abi_ok {
            return Err(accepted());
        }
        let libc = match (os, abi) {
            ("linux", Some("gnu")) => Some("glibc".to_string()),
            ("linux", Some(abi)) => Some(abi.to_string()),
            _ => None,
        };
        Ok(Platform {
            name: name.to_string(),
            os: os.to_string(),
            cpu: cpu.to_string(),
            libc,
        })
    }

    /// The name of `package`'s prebuilt package for this platform.
    pub fn package_of(&self, package: &str) -> String {
        format!("{package}-{}", self.name)
    }
}

#[cfg(test)]
mod tests {
    use super::Platform;

    #[test]
    fn platforms_parse_into_npm_fields() {
        let p = Platform::parse("linux-x64-gnu").unwrap();
        assert_eq!(
            (p.os.as_str(), p.cpu.as_str(), p.libc.as_deref()),
            ("linux", "x64", Some("glibc"))
        );
        assert_eq!(
            Platform::parse("linux-arm64-musl").unwrap().libc.as_deref(),
            Some("musl")
        );
        let mac = Platform::parse("darwin-arm64").unwrap();
        assert_eq!((mac.os.as_str(), mac.libc.as_deref()), ("darwin", None));
        assert_eq!(Platform::parse("win32-x64-msvc").unwrap().os, "win32");
        assert_eq!(mac.package_of("@me/testing"), "@me/testing-darwin-arm64");
        for bad in [
            "linux-x64",
            "darwin-arm64-gnu",
            "linux-x86-gnu",
            "beos-x64",
            "x",
        ] {
            let message = Platform::parse(bad).unwrap_err();
            assert!(
                message.contains(&format!(
                    "platform `{bad}` is not one of linux-<cpu>-gnu|musl"
                )),
                "{message}"
            );
        }
    }
}
