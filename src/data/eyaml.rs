//! hiera-eyaml's encrypted values, read as `eyaml_lookup_key` reads them: which strings hold
//! encrypted blocks (`ENC[PKCS7,...]`, one line or folded over several), how the blocks of a
//! string are found and decoded (hiera-eyaml's Hiera backend parser and Ruby's lenient
//! Base64), and how one block is opened: a CMS (PKCS#7) EnvelopedData whose content key is
//! wrapped for an RSA key (PKCS#1 v1.5) and whose content is AES-CBC.
//!
//! It owns the format and the cryptography only. It reads no files and no environment (the
//! injector's key ring gives it a parsed [`PrivateKey`]), keeps nothing, and never says what a
//! value decrypts to except by returning it.

use aes::cipher::{block_padding::Pkcs7, BlockDecryptMut, KeyIvInit};
use cms::content_info::ContentInfo;
use cms::enveloped_data::{EnvelopedData, RecipientInfo};
use der::asn1::{ObjectIdentifier, OctetString};
use der::{Decode, Encode};
use rsa::pkcs1::DecodeRsaPrivateKey;
use rsa::pkcs8::DecodePrivateKey;

/// An RSA private key, as hiera-eyaml's `createkeys` writes one (PEM, PKCS#1 or PKCS#8).
pub struct PrivateKey(rsa::RsaPrivateKey);

impl std::fmt::Debug for PrivateKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PrivateKey(..)")
    }
}

impl PrivateKey {
    /// Reads a PEM private key; the error says what the text is instead.
    pub fn from_pem(text: &str) -> Result<PrivateKey, String> {
        let text = text.trim_start_matches('\u{feff}');
        if text.contains("-----BEGIN RSA PRIVATE KEY-----") {
            if text.contains("Proc-Type: 4,ENCRYPTED") {
                return Err(
                    "it is protected by a passphrase, which hiera-eyaml cannot give either".into(),
                );
            }
            return rsa::RsaPrivateKey::from_pkcs1_pem(text)
                .map(PrivateKey)
                .map_err(|e| format!("it is not a readable RSA private key ({e})"));
        }
        if text.contains("-----BEGIN PRIVATE KEY-----") {
            return rsa::RsaPrivateKey::from_pkcs8_pem(text)
                .map(PrivateKey)
                .map_err(|e| format!("it is not a readable RSA private key ({e})"));
        }
        if text.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----") {
            return Err(
                "it is protected by a passphrase, which hiera-eyaml cannot give either".into(),
            );
        }
        if text.contains("-----BEGIN CERTIFICATE-----") {
            return Err("it is a certificate (the public key), not the private key".into());
        }
        Err("it holds no PEM private key (`-----BEGIN RSA PRIVATE KEY-----`)".into())
    }
}

/// Why a string's encrypted blocks could not be opened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DecryptError {
    /// A block names an encryption method other than PKCS7 (`ENC[GPG,...]`, a plugin's).
    Method(String),
    /// The block is not an EnvelopedData pbc can read (bad Base64, truncated, another cipher).
    Malformed(String),
    /// No recipient of the block opens with this key: it was encrypted for another key.
    WrongKey,
    /// The plaintext is not UTF-8 text.
    NotText,
}

impl std::fmt::Display for DecryptError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DecryptError::Method(m) => write!(
                f,
                "it is encrypted with hiera-eyaml's `{m}` method (a plugin's), and pbc opens only PKCS7 values"
            ),
            DecryptError::Malformed(why) => write!(f, "it is not a PKCS7 value pbc can read: {why}"),
            DecryptError::WrongKey => f.write_str("it was encrypted for another key pair"),
            DecryptError::NotText => f.write_str("it decrypts to bytes that are not UTF-8 text"),
        }
    }
}

/// `eyaml_lookup_key`'s `encrypted?`: `ENC[` and a later `]` on the same line. Only such a
/// string is decrypted (and then chomped); any other is returned as written.
pub fn is_encrypted(text: &str) -> bool {
    // Ruby's `.` stops at `\n` only (a `\r` is any other character).
    text.split('\n').any(|line| {
        line.find("ENC[")
            .is_some_and(|at| line[at + 4..].contains(']'))
    })
}

/// One piece of a string as hiera-eyaml's Hiera parser cuts it: text, or an encrypted block
/// (its method, `None` for the default PKCS7, and its Base64 with whitespace removed).
#[derive(Debug, PartialEq, Eq)]
pub enum Piece<'s> {
    Text(&'s str),
    Block {
        method: Option<String>,
        base64: String,
    },
}

/// The pieces of `text` (`EncHieraTokenType`: `ENC\[(\w+,)?([a-zA-Z0-9+/ =\n]+?)\]`, blocks
/// found left to right, the text between them kept).
pub fn pieces(text: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut plain_from = 0;
    let mut search = 0;
    while let Some(found) = text[search..].find("ENC[") {
        let start = search + found;
        match block_at(text, start) {
            Some((end, method, base64)) => {
                if plain_from < start {
                    out.push(Piece::Text(&text[plain_from..start]));
                }
                out.push(Piece::Block { method, base64 });
                plain_from = end;
                search = end;
            }
            None => search = start + 4,
        }
    }
    if plain_from < text.len() {
        out.push(Piece::Text(&text[plain_from..]));
    }
    out
}

/// The block starting at `start` (`ENC[`), if the pattern matches there: its end, method and
/// Base64 (whitespace removed, as `create_token` removes it).
fn block_at(text: &str, start: usize) -> Option<(usize, Option<String>, String)> {
    let body_from = start + 4;
    let rest = &text[body_from..];
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let base64_char =
        |c: char| c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | ' ' | '=' | '\n');
    // `(\w+,)?`: a method when a run of word characters ends in a comma.
    let word_len = rest.find(|c: char| !word(c)).unwrap_or(rest.len());
    let (method, data_from) = if word_len > 0 && rest[word_len..].starts_with(',') {
        (Some(rest[..word_len].to_string()), word_len + 1)
    } else {
        (None, 0)
    };
    let data = &rest[data_from..];
    let data_len = data.find(|c: char| !base64_char(c)).unwrap_or(data.len());
    if data_len == 0 || !data[data_len..].starts_with(']') {
        return None;
    }
    let base64: String = data[..data_len]
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    Some((body_from + data_from + data_len + 1, method, base64))
}

/// The string's blocks opened with `key` and the text between them kept, then chomped (one
/// trailing line break removed), as `eyaml_lookup_key` returns it before interpolating.
pub fn decrypt_string(text: &str, key: &PrivateKey) -> Result<String, DecryptError> {
    let mut out = String::new();
    for piece in pieces(text) {
        match piece {
            Piece::Text(t) => out.push_str(t),
            Piece::Block { method, base64 } => {
                if let Some(m) = method.filter(|m| !m.eq_ignore_ascii_case("PKCS7")) {
                    return Err(DecryptError::Method(m));
                }
                if base64.is_empty() {
                    return Err(DecryptError::Malformed("the block is empty".into()));
                }
                let plain = open(&crate::data::yaml::ruby_base64(&base64), key)?;
                out.push_str(&String::from_utf8(plain).map_err(|_| DecryptError::NotText)?);
            }
        }
    }
    Ok(chomp(out))
}

/// Whether `text` has a block to open (a string [`is_encrypted`] may have none: `ENC[a!]`,
/// which eyaml returns as written, chomped, without a key).
pub fn has_blocks(text: &str) -> bool {
    pieces(text)
        .iter()
        .any(|p| matches!(p, Piece::Block { .. }))
}

/// Ruby's `chomp`: one trailing `\r\n`, `\n` or `\r` removed.
pub fn chomp(mut text: String) -> String {
    if text.ends_with("\r\n") {
        text.truncate(text.len() - 2);
    } else if text.ends_with(['\n', '\r']) {
        text.truncate(text.len() - 1);
    }
    text
}

const ID_ENVELOPED_DATA: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.7.3");
const RSA_ENCRYPTION: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.1.1");
const AES_128_CBC: ObjectIdentifier = ObjectIdentifier::new_unwrap("2.16.840.1.101.3.4.1.2");
const AES_192_CBC: ObjectIdentifier = ObjectIdentifier::new_unwrap("2.16.840.1.101.3.4.1.22");
const AES_256_CBC: ObjectIdentifier = ObjectIdentifier::new_unwrap("2.16.840.1.101.3.4.1.42");

/// Opens one block: `OpenSSL::PKCS7#decrypt` for what hiera-eyaml writes (one or more RSA
/// recipients, AES-CBC content). Every recipient is tried: a certificate would only say which.
pub fn open(der_bytes: &[u8], key: &PrivateKey) -> Result<Vec<u8>, DecryptError> {
    let malformed = |what: &str, e: der::Error| DecryptError::Malformed(format!("{what} ({e})"));
    let info = ContentInfo::from_der(der_bytes).map_err(|e| malformed("no PKCS7 structure", e))?;
    if info.content_type != ID_ENVELOPED_DATA {
        return Err(DecryptError::Malformed(format!(
            "its content is {} where enveloped data (1.2.840.113549.1.7.3) was expected",
            info.content_type
        )));
    }
    let inner = info
        .content
        .to_der()
        .map_err(|e| malformed("unreadable content", e))?;
    let enveloped =
        EnvelopedData::from_der(&inner).map_err(|e| malformed("no enveloped data", e))?;
    let content = &enveloped.encrypted_content;
    let alg = &content.content_enc_alg;
    let key_len = match alg.oid {
        o if o == AES_256_CBC => 32,
        o if o == AES_192_CBC => 24,
        o if o == AES_128_CBC => 16,
        other => {
            return Err(DecryptError::Malformed(format!(
                "its content cipher {other} is not AES-CBC"
            )))
        }
    };
    let iv = alg
        .parameters
        .as_ref()
        .and_then(|p| p.decode_as::<OctetString>().ok())
        .filter(|iv| iv.as_bytes().len() == 16)
        .ok_or_else(|| {
            DecryptError::Malformed("its AES-CBC parameters hold no 16-byte IV".into())
        })?;
    let ciphertext = content
        .encrypted_content
        .as_ref()
        .ok_or_else(|| DecryptError::Malformed("it holds no encrypted content".into()))?
        .as_bytes();
    for recipient in enveloped.recip_infos.0.iter() {
        let RecipientInfo::Ktri(ktri) = recipient else {
            continue;
        };
        if ktri.key_enc_alg.oid != RSA_ENCRYPTION {
            continue;
        }
        let Ok(content_key) = key.0.decrypt_blinded(
            &mut rsa::rand_core::OsRng,
            rsa::Pkcs1v15Encrypt,
            ktri.enc_key.as_bytes(),
        ) else {
            continue;
        };
        if content_key.len() != key_len {
            continue;
        }
        if let Some(plain) = aes_cbc(&content_key, iv.as_bytes(), ciphertext) {
            return Ok(plain);
        }
    }
    Err(DecryptError::WrongKey)
}

/// AES-CBC with PKCS#7 padding, the key's length choosing AES-128, -192 or -256; `None` when
/// the padding is wrong (the content key was not this block's).
fn aes_cbc(key: &[u8], iv: &[u8], ciphertext: &[u8]) -> Option<Vec<u8>> {
    let mut buffer = ciphertext.to_vec();
    let len = match key.len() {
        32 => cbc::Decryptor::<aes::Aes256>::new_from_slices(key, iv)
            .ok()?
            .decrypt_padded_mut::<Pkcs7>(&mut buffer)
            .ok()?
            .len(),
        24 => cbc::Decryptor::<aes::Aes192>::new_from_slices(key, iv)
            .ok()?
            .decrypt_padded_mut::<Pkcs7>(&mut buffer)
            .ok()?
            .len(),
        16 => cbc::Decryptor::<aes::Aes128>::new_from_slices(key, iv)
            .ok()?
            .decrypt_padded_mut::<Pkcs7>(&mut buffer)
            .ok()?
            .len(),
        _ => return None,
    };
    buffer.truncate(len);
    Some(buffer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encrypted_strings_are_found_as_eyaml_finds_them() {
        assert!(is_encrypted("ENC[PKCS7,abc]"));
        assert!(is_encrypted("x ENC[abc] y"));
        assert!(is_encrypted("ENC[PKCS7,abc def]\n"));
        // `]` on a later line: eyaml's `.` stops at a line break, so the string is left as is.
        assert!(!is_encrypted("ENC[PKCS7,abc\ndef]"));
        assert!(!is_encrypted("ENC(abc)"));
        assert!(is_encrypted("ENC[\r]"));
    }

    #[test]
    fn blocks_are_cut_as_the_hiera_parser_cuts_them() {
        let block = |m: Option<&str>, b: &str| Piece::Block {
            method: m.map(str::to_string),
            base64: b.to_string(),
        };
        assert_eq!(
            pieces("a ENC[PKCS7,QU JD\n==] b ENC[QUJD]"),
            vec![
                Piece::Text("a "),
                block(Some("PKCS7"), "QUJD=="),
                Piece::Text(" b "),
                block(None, "QUJD")
            ]
        );
        // A character outside the pattern (a tab, `!`) leaves the block as text.
        assert_eq!(
            pieces("ENC[PKCS7,QU\tJD]"),
            vec![Piece::Text("ENC[PKCS7,QU\tJD]")]
        );
        assert_eq!(
            pieces("ENC[PKCS7,a!b]"),
            vec![Piece::Text("ENC[PKCS7,a!b]")]
        );
        assert_eq!(pieces("ENC[GPG,abc]"), vec![block(Some("GPG"), "abc")]);
        // `ENC[ENC[x]`: the first does not match, the second does.
        assert_eq!(
            pieces("ENC[ENC[QUJD]"),
            vec![Piece::Text("ENC["), block(None, "QUJD")]
        );
    }

    #[test]
    fn base64_is_decoded_as_ruby_decodes_it() {
        // Each checked with `ruby -rbase64 -e 'p Base64.decode64(...)'`.
        let ruby_decode64 = crate::data::yaml::ruby_base64;
        assert_eq!(ruby_decode64("QUJD"), b"ABC");
        assert_eq!(ruby_decode64("QUJ"), b"AB");
        assert_eq!(ruby_decode64("QU=JD"), b"A");
        assert_eq!(ruby_decode64("QUI=QUJD"), b"AB");
        assert_eq!(ruby_decode64("Q"), b"");
        assert_eq!(ruby_decode64("QUJDQUI=="), b"ABCAB");
    }

    #[test]
    fn other_methods_and_broken_blocks_are_errors_not_text() {
        let key = PrivateKey::from_pem(TEST_KEY).expect("the test key");
        assert_eq!(
            decrypt_string("ENC[GPG,QUJD]", &key),
            Err(DecryptError::Method("GPG".into()))
        );
        assert!(matches!(
            decrypt_string("ENC[PKCS7,QUJD]", &key),
            Err(DecryptError::Malformed(_))
        ));
        // No block matched: the text as written, chomped.
        assert_eq!(decrypt_string("ENC[a!]\n", &key), Ok("ENC[a!]".to_string()));
    }

    #[test]
    fn keys_that_are_not_private_keys_say_what_they_are() {
        let why = |pem: &str| PrivateKey::from_pem(pem).err().unwrap_or_default();
        assert!(
            why("-----BEGIN CERTIFICATE-----\nMII=\n-----END CERTIFICATE-----\n")
                .contains("certificate")
        );
        assert!(why("hello").contains("no PEM"));
        assert!(why("-----BEGIN ENCRYPTED PRIVATE KEY-----\n").contains("passphrase"));
        assert!(why(
            "-----BEGIN RSA PRIVATE KEY-----\nnot base64\n-----END RSA PRIVATE KEY-----\n"
        )
        .contains("not a readable RSA private key"));
    }

    /// The first one-line block of the corpus's eyaml tree (made by hiera-eyaml 3.3.0 for the
    /// test key: `s3cret-db-pass`).
    fn corpus_block() -> String {
        let data = include_str!("../../corpus/lookup/trees/eyaml/data/secrets.eyaml");
        let line = data
            .lines()
            .find(|l| l.starts_with("profile::db_password: ENC["))
            .expect("the corpus value");
        line["profile::db_password: ".len()..].to_string()
    }

    #[test]
    fn hiera_eyaml_values_open_with_their_key() {
        let key = PrivateKey::from_pem(TEST_KEY).expect("the test key");
        let block = corpus_block();
        assert_eq!(
            decrypt_string(&block, &key).as_deref(),
            Ok("s3cret-db-pass")
        );
        // Text around a block stays; whitespace inside it is ignored.
        let spaced = format!("a {} b", block.replacen("MIIB", "MI\n  IB", 1));
        assert_eq!(
            decrypt_string(&spaced, &key).as_deref(),
            Ok("a s3cret-db-pass b")
        );
    }

    #[test]
    fn damaged_blocks_fail_without_panicking() {
        let key = PrivateKey::from_pem(TEST_KEY).expect("the test key");
        let block = corpus_block();
        let base64 = &block["ENC[PKCS7,".len()..block.len() - 1];
        let bytes = crate::data::yaml::ruby_base64(base64);
        // Every truncation fails: the structure, the wrapped key or the padding is cut.
        for len in 0..bytes.len() {
            assert!(open(&bytes[..len], &key).is_err(), "truncated to {len}");
        }
        // A byte changed (every fifth: each costs an RSA operation) gives an error or other
        // bytes, never a panic.
        for i in (0..bytes.len()).step_by(5) {
            let mut changed = bytes.clone();
            changed[i] ^= 0x5a;
            let _ = open(&changed, &key);
        }
    }

    const TEST_KEY: &str =
        include_str!("../../corpus/lookup/trees/eyaml/keys/private_key.pkcs7.pem");
}
