import type { CheckoutButtonStrings } from '../checkout-button/checkout-button.strings.js';
import type { OtpVerifyStrings } from '../otp-verify/otp-verify.strings.js';
import type { PayByMobileStrings } from '../pay-by-mobile/pay-by-mobile.strings.js';
import { registerTranslation } from '../shared/localize.js';

/** French words of the three elements. The main entry registers them; import this module with one element alone. */
export const fr: OtpVerifyStrings & PayByMobileStrings & CheckoutButtonStrings = {
  error: 'Une erreur est survenue. Réessayez plus tard.',
  NETWORK: 'Pas de connexion. Vérifiez vos données et réessayez.',
  TOKEN_INVALID: 'Ce formulaire a expiré. Rechargez la page.',
  TOKEN_EXPIRED: 'Ce formulaire a expiré. Rechargez la page.',
  RATE_LIMITED: 'Trop de tentatives.',
  UPSTREAM_UNAVAILABLE: 'Le service est occupé. Réessayez dans un instant.',
  INVALID_PHONE_NUMBER: "Ce numéro de téléphone n'est pas valide.",
  phone: 'Numéro de téléphone',
  changeNumber: 'Utiliser un autre numéro',
  tryAgain: 'Réessayer',
  waitFor: (clock) => `Réessayez dans ${clock}.`,

  OTP_INVALID: "Ce code n'est pas le bon.",
  OTP_EXPIRED: 'Ce code a expiré. Demandez-en un nouveau.',
  OTP_LOCKED: 'Trop de codes erronés. Réessayez plus tard.',
  HUMAN_CHECK_FAILED: "Nous n'avons pas pu vérifier que vous êtes une personne.",
  send: 'Envoyer le code',
  sending: 'Envoi du code…',
  sent: (recipient) => `Nous avons envoyé un code par SMS au ${recipient}.`,
  delivered: 'Code remis.',
  notDelivered: 'Non remis. Vérifiez le numéro.',
  code: 'Code reçu par SMS',
  verify: 'Vérifier',
  verifying: 'Vérification du code…',
  verified: 'Numéro de téléphone vérifié.',
  resend: 'Envoyer un nouveau code',
  resendIn: (clock) => `Nouveau code dans ${clock}`,
  attemptsLeft: (n) => (n == 1 ? 'Encore 1 essai.' : `Encore ${n} essais.`),
  required: 'Vérifiez votre numéro de téléphone.',

  ACCOUNT_NOT_FOUND: "Aucun compte mobile money pour ce numéro.",
  INSUFFICIENT_FUNDS: 'Solde insuffisant sur le compte.',
  PAYMENT_FAILED: "Le paiement n'a pas abouti.",
  ATTEMPTS_EXHAUSTED: "Plus aucune tentative n'est permise pour cette commande.",
  next: 'Continuer',
  lookingUp: 'Recherche du compte…',
  confirm: (amount, name, network) => `Payer ${amount} depuis le compte ${name} (${network}) ?`,
  pay: (amount) => `Payer ${amount}`,
  paying: 'Envoi de la demande à votre téléphone…',
  approve: 'Validez le paiement sur votre téléphone avec votre code PIN.',
  left: (clock) => `Encore ${clock}`,
  completed: 'Paiement reçu. Merci !',
  declined: 'Le paiement a été refusé sur le téléphone.',
  timedOut: 'Pas encore de réponse du téléphone.',
  checkAgain: 'Vérifier à nouveau',

  label: 'Payer maintenant',
  creating: 'Ouverture du paiement…',
  open: 'Terminez le paiement sur la page de paiement.',
  failed: "Le paiement n'a pas abouti.",
  cancelled: 'Le paiement a été annulé.',
  expired: 'Le paiement a expiré. Recommencez.',
};

registerTranslation('fr', fr);
