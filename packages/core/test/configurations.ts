// What the mDL configurations of the core's tests show a wallet: card and claim labels
// (OpenID4VCI 1.0 §12.2.4, docs/decisions.md "Credential configurations").
import type { ClaimDisplay, CredentialDisplay } from '../src/configurations/model.ts';

/** The display of an mDL configuration: its card, and its family name's labels in English and French. */
export const MDL_DISPLAY: { display: CredentialDisplay[]; claimDisplay: ClaimDisplay } = {
  claimDisplay: {
    'org.iso.18013.5.1': {
      family_name: [
        { name: 'Family name', locale: 'en' },
        { name: 'Nom', locale: 'fr' },
      ],
    },
  },
  display: [
    {
      name: 'Driver licence',
      locale: 'en',
      logo: { uri: 'https://issuer.example/logo.png', alt_text: 'Logo' },
      background_color: '#12107c',
      text_color: '#ffffff',
    },
  ],
};
