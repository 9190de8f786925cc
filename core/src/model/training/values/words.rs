//! Text the request packs into one string that the pod needs as a list: a command line, and
//! comma-separated group ids.

/// A command line split into words the way a POSIX shell splits them (quotes and backslashes),
/// without expanding anything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Words(Vec<String>);

impl Words {
    /// Splits `s`; the error says what is unbalanced.
    pub fn split(s: &str) -> Result<Words, String> {
        let mut words = Vec::new();
        let mut current = String::new();
        let mut in_word = false;
        let mut chars = s.chars();
        while let Some(c) = chars.next() {
            match c {
                '\'' => {
                    in_word = true;
                    single_quoted(&mut chars, &mut current)?;
                }
                '"' => {
                    in_word = true;
                    double_quoted(&mut chars, &mut current)?;
                }
                '\\' => match chars.next() {
                    Some('\n') => {}
                    Some(c) => {
                        in_word = true;
                        current.push(c);
                    }
                    None => return Err("ends with a lone backslash".into()),
                },
                c if c.is_whitespace() => {
                    if in_word {
                        words.push(std::mem::take(&mut current));
                        in_word = false;
                    }
                }
                c => {
                    in_word = true;
                    current.push(c);
                }
            }
        }
        if in_word {
            words.push(current);
        }
        Ok(Words(words))
    }

    /// Words given one by one, such as a command Tephra runs itself: nothing to split.
    pub fn of(words: &[&str]) -> Words {
        Words(words.iter().map(|w| (*w).to_owned()).collect())
    }

    /// The words.
    pub fn as_slice(&self) -> &[String] {
        &self.0
    }

    /// The words, or `None` for a blank line (which leaves the image's own command in place).
    pub fn to_list(&self) -> Option<Vec<String>> {
        (!self.0.is_empty()).then(|| self.0.clone())
    }
}

fn single_quoted(chars: &mut std::str::Chars<'_>, current: &mut String) -> Result<(), String> {
    loop {
        match chars.next() {
            Some('\'') => return Ok(()),
            Some(c) => current.push(c),
            None => return Err("has an unterminated single quote".into()),
        }
    }
}

fn double_quoted(chars: &mut std::str::Chars<'_>, current: &mut String) -> Result<(), String> {
    let unterminated = || "has an unterminated double quote".to_owned();
    loop {
        match chars.next().ok_or_else(unterminated)? {
            '"' => return Ok(()),
            '\\' => match chars.next().ok_or_else(unterminated)? {
                c @ ('"' | '\\' | '$' | '`') => current.push(c),
                '\n' => {}
                c => {
                    current.push('\\');
                    current.push(c);
                }
            },
            c => current.push(c),
        }
    }
}

/// Group ids from `"2,3,5,8"`, each from 0 to the int32 maximum; a blank string is none.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SupplementalGroups(Vec<i64>);

impl SupplementalGroups {
    /// Refuses anything but comma-separated ids in range.
    pub fn parse(s: &str) -> Result<SupplementalGroups, String> {
        if s.trim().is_empty() {
            return Ok(SupplementalGroups::default());
        }
        s.split(',')
            .map(|g| {
                g.trim()
                    .parse::<i64>()
                    .ok()
                    .filter(|n| (0..=i64::from(i32::MAX)).contains(n))
                    .ok_or_else(|| {
                        format!(
                            "must be comma-separated group ids from 0 to {}, e.g. \"2,3,5\" \
                             (got {s:?})",
                            i32::MAX
                        )
                    })
            })
            .collect::<Result<_, _>>()
            .map(SupplementalGroups)
    }

    /// The group ids.
    pub fn as_slice(&self) -> &[i64] {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(s: &str) -> Vec<String> {
        Words::split(s).unwrap().as_slice().to_vec()
    }

    #[test]
    fn words_split_like_a_shell_without_expanding() {
        assert_eq!(split("-x my-script.py"), ["-x", "my-script.py"]);
        assert_eq!(
            split(r#"python -c 'print("hi there")' --flag="a b" c\ d"#),
            ["python", "-c", r#"print("hi there")"#, "--flag=a b", "c d"]
        );
        assert_eq!(split(r#""a\"b\\c\$d\e""#), [r#"a"b\c$d\e"#]);
        assert_eq!(split("a\\\nb"), ["ab"]);
        assert_eq!(split("''"), [""]);
        assert_eq!(split("echo $HOME"), ["echo", "$HOME"]);
    }

    #[test]
    fn words_given_one_by_one_are_kept_whole() {
        assert_eq!(Words::of(&["sleep", "a b"]).as_slice(), ["sleep", "a b"]);
    }

    #[test]
    fn a_blank_line_has_no_words_and_no_list() {
        let blank = Words::split("  ").unwrap();
        assert!(blank.as_slice().is_empty());
        assert_eq!(blank.to_list(), None);
        assert_eq!(
            Words::split("a").unwrap().to_list(),
            Some(vec!["a".to_owned()])
        );
    }

    #[test]
    fn unbalanced_quotes_and_a_trailing_backslash_are_refused() {
        assert_eq!(
            Words::split("echo 'open").unwrap_err(),
            "has an unterminated single quote"
        );
        assert_eq!(
            Words::split("echo \"open").unwrap_err(),
            "has an unterminated double quote"
        );
        assert_eq!(
            Words::split("echo \"open\\").unwrap_err(),
            "has an unterminated double quote"
        );
        assert_eq!(
            Words::split("trailing\\").unwrap_err(),
            "ends with a lone backslash"
        );
    }

    #[test]
    fn supplemental_groups_are_ids_in_the_int32_range() {
        let ids = |s: &str| SupplementalGroups::parse(s).unwrap().as_slice().to_vec();
        assert_eq!(ids("2, 3 ,5"), [2, 3, 5]);
        assert_eq!(ids("0,2147483647"), [0, 2147483647]);
        assert!(ids("").is_empty());
        assert!(ids("  ").is_empty());
        for bad in ["-1", "2147483648", "2,,3", "2;3", "1.5", "x"] {
            assert_eq!(
                SupplementalGroups::parse(bad).unwrap_err(),
                format!(
                    "must be comma-separated group ids from 0 to 2147483647, e.g. \"2,3,5\" \
                     (got {bad:?})"
                )
            );
        }
    }
}
