import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createCertificateChainValidator } from './chain.ts';

// Certificates made by OpenSSL 3.0 (not by Vellum nor @peculiar/x509), with:
//   openssl req -x509 -new -key root.key -subj "/CN=Fixture Root" -addext "basicConstraints=critical,CA:TRUE"
//     -addext "subjectKeyIdentifier=hash" -addext "authorityKeyIdentifier=keyid:always"
//   openssl x509 -req -in leaf.csr -CA root.pem -CAkey root.key -extfile leaf.ext   (AKI keyid:always)
//   openssl req -x509 -new -key leaf.key -subj "/CN=No AKI" -addext "subjectKeyIdentifier=none" -addext "authorityKeyIdentifier=none"
// The expected identifiers are as `openssl x509 -noout -ext authorityKeyIdentifier` printed them.
const ROOT = `-----BEGIN CERTIFICATE-----
MIIBhDCCASmgAwIBAgIUWEVE1943e6FLlcpeCsMpKjoe9+8wCgYIKoZIzj0EAwIw
FzEVMBMGA1UEAwwMRml4dHVyZSBSb290MB4XDTI2MTEyODE0NTQyNFoXDTM2MTEy
NTE0NTQyNFowFzEVMBMGA1UEAwwMRml4dHVyZSBSb290MFkwEwYHKoZIzj0CAQYI
KoZIzj0DAQcDQgAEGdXqbjrLv2y4EQd+SlZTwF9WqB4Db9a5HrLwIm7PS2dBBl8w
GNsC7KRIxDHbH4MNRektjcIhL6NUsllML2XDdKNTMFEwDwYDVR0TAQH/BAUwAwEB
/zAdBgNVHQ4EFgQU95/Y1J7oYfarek9VUZdtix5klycwHwYDVR0jBBgwFoAU95/Y
1J7oYfarek9VUZdtix5klycwCgYIKoZIzj0EAwIDSQAwRgIhAPnfxycPB2fRlMDs
fUtjiFXKsK58o96/VcaQ1RT+p0bsAiEAwbtugtGSQyEk4lvYRLZgOaP2l7nLnKA2
8YfDkqNWnPk=
-----END CERTIFICATE-----`;
const LEAF = `-----BEGIN CERTIFICATE-----
MIIBfzCCASWgAwIBAgIUENlzTq3bX2uUH+EuUMNgirk5PIAwCgYIKoZIzj0EAwIw
FzEVMBMGA1UEAwwMRml4dHVyZSBSb290MB4XDTI2MTEyODE0NTQyNFoXDTI3MTEy
ODE0NTQyNFowGTEXMBUGA1UEAwwORml4dHVyZSBTaWduZXIwWTATBgcqhkjOPQIB
BggqhkjOPQMBBwNCAARa6RXOwwjQK8NdB+7fmI7p0qeu9pmjE5+E+7Nsya8RpwrP
o4JqxaUkcT8AGK8SK4l97uYlx7sDTf7W6+ikCRGNo00wSzAJBgNVHRMEAjAAMB0G
A1UdDgQWBBTbQI8dnd8R46RMNiDWMp11EVPlUDAfBgNVHSMEGDAWgBT3n9jUnuhh
9qt6T1VRl22LHmSXJzAKBggqhkjOPQQDAgNIADBFAiBV+utFGTiyG1DKT2W4GZp5
mlRic0GmLJ4lkkeVYQVKKwIhAPq3rBng13jLF3Q9AOXzTuO3N/QIfreAmadv3Qxz
cMoM
-----END CERTIFICATE-----`;
const NOAKI = `-----BEGIN CERTIFICATE-----
MIIBNjCB3aADAgECAhQwMJgfiA9xWFlxsFihkoF83YDu+jAKBggqhkjOPQQDAjAR
MQ8wDQYDVQQDDAZObyBBS0kwHhcNMjYxMTI4MTQ1NDI0WhcNMjcxMTI4MTQ1NDI0
WjARMQ8wDQYDVQQDDAZObyBBS0kwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAARa
6RXOwwjQK8NdB+7fmI7p0qeu9pmjE5+E+7Nsya8RpwrPo4JqxaUkcT8AGK8SK4l9
7uYlx7sDTf7W6+ikCRGNoxMwETAPBgNVHRMBAf8EBTADAQH/MAoGCCqGSM49BAMC
A0gAMEUCICFRHg42ukKpGgiazoxqT2uifENpxI8oZwgruCRcZJa5AiEArRwenlym
GevSGOvgK9y9LqCQ9vjSNbiSUbyoQ5AFqNg=
-----END CERTIFICATE-----`;
const ROOT_AKI_BY_OPENSSL = 'F7:9F:D8:D4:9E:E8:61:F6:AB:7A:4F:55:51:97:6D:8B:1E:64:97:27';
const LEAF_SKI_BY_OPENSSL = 'DB:40:8F:1D:9D:DF:11:E3:A4:4C:36:20:D6:32:9D:75:11:53:E5:50';

const der = (pem: string) => new Uint8Array(new X509Certificate(pem).raw);
const base64url = (colonHex: string) => Buffer.from(colonHex.replaceAll(':', ''), 'hex').toString('base64url');

describe('authorityKeyIds', () => {
  const chains = createCertificateChainValidator();

  it('reads the keyIdentifier of the signer and of the root, once each, in chain order', () => {
    // The signer's AKI is the root's key identifier; the self-signed root names itself: one value.
    expect(chains.authorityKeyIds?.([der(LEAF), der(ROOT)])).toEqual([base64url(ROOT_AKI_BY_OPENSSL)]);
    expect(chains.authorityKeyIds?.([der(LEAF)])).toEqual(['95_Y1J7oYfarek9VUZdtix5klyc']);
  });

  it('never returns a subject key identifier', () => {
    expect(chains.authorityKeyIds?.([der(LEAF)])).not.toContain(base64url(LEAF_SKI_BY_OPENSSL));
  });

  it('skips certificates without the extension and bytes that are no certificate', () => {
    expect(chains.authorityKeyIds?.([der(NOAKI)])).toEqual([]);
    expect(chains.authorityKeyIds?.([Uint8Array.of(0x30, 0x03, 1, 2, 3), der(LEAF)])).toEqual([base64url(ROOT_AKI_BY_OPENSSL)]);
    expect(chains.authorityKeyIds?.([])).toEqual([]);
  });
});
