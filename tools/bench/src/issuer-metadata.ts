// Benchmark (issue 4): GET /.well-known/openid-credential-issuer of a tenant with 10 credential
// configurations (two per format), served by the real server on SQLite, pinned to one CPU core.
// Prints requests per second, latency and requests per server CPU-second.
//
//   node src/issuer-metadata.ts [--seconds 10] [--connections 32] [--log-level info]
import { runGetBench } from './well-known-get.ts';

const mappings = {
  given_name: { mapFrom: 'claims.givenName', required: true },
  family_name: { mapFrom: 'claims.familyName', required: true },
  level: { defaultValue: 3 },
};
const labels = {
  given_name: [
    { name: 'Given name', locale: 'en' },
    { name: 'Prénom', locale: 'fr' },
  ],
};
const display = [
  { name: 'Credential', locale: 'en', logo: { uri: 'https://issuer.example/logo.png', alt_text: 'Logo' }, background_color: '#12107c', text_color: '#ffffff' },
];
const flat = (type: string) => ({ type, expiresIn: { days: 365 }, claimMappings: mappings, claimDisplay: labels, display });

/** Two configurations of each format, as an issuer with a few credential types would have. */
const CONFIGURATIONS: Array<[string, object]> = [1, 2].flatMap(
  (n) =>
    [
      [
        '/v2/credentials/mobile/configurations',
        {
          ...flat(`org.example.card.${n}`),
          claimMappings: { 'org.example.1': { ...mappings, level: { defaultValue: 3, type: 'number' } } },
          claimDisplay: { 'org.example.1': labels },
        },
      ],
      ['/v2/credentials/web-semantic/configurations', { ...flat(`Card${n}`), issuer: { name: 'Issuer' } }],
      ['/v2/credentials/compact/configurations', flat(`Card${n}`)],
      ['/v2/credentials/compact-semantic/configurations', flat(`Card${n}`)],
      ['/v2/credentials/sd-jwt/configurations', flat(`https://issuer.example/card/${n}`)],
    ] as Array<[string, object]>,
);

runGetBench({
  path: '/.well-known/openid-credential-issuer',
  creating: 'a configuration',
  posts: CONFIGURATIONS,
  details: (first) => {
    const count = Object.keys((JSON.parse(first.text) as { credential_configurations_supported: object }).credential_configurations_supported).length;
    if (count !== CONFIGURATIONS.length) throw new Error(`expected ${CONFIGURATIONS.length} configurations, got ${count}`);
    return { configurations: count };
  },
});
