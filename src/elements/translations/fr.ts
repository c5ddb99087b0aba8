import type { CheckoutButtonStrings } from '../checkout-button/checkout-button.strings.js';
import type { OtpVerifyStrings } from '../otp-verify/otp-verify.strings.js';
import type { PayByMobileStrings } from '../pay-by-mobile/pay-by-mobile.strings.js';
import { registerTranslation } from '../shared/localize.js';
import { wait } from '../shared/strings.js';

/** French words of the three elements. The main entry registers them; import this module with one element alone. */
export const fr: OtpVerifyStrings & PayByMobileStrings & CheckoutButtonStrings = {
  error: 'Une erreur est survenue. Réessayez plus tard.',
  NETWORK: 'Pas de connexion. Vérifiez vos données et réessayez.',
  TOKEN_INVALID: 'Ce formulaire a expiré. Rechargez la page.',
  TOKEN_EXPIRED: 'Ce formulaire a expiré. Rechargez la page.',
  ORIGIN_NOT_ALLOWED: "Cette page n'est pas autorisée à encaisser des paiements. Contactez la boutique.",
  INVALID_INPUT: 'Vérifiez le numéro et réessayez.',
  PAYLOAD_TOO_LARGE: 'Trop long. Vérifiez le numéro.',
  RATE_LIMITED: (d) =>
    `Trop ${d.scope == 'address' ? 'de demandes depuis cette connexion' : 'de tentatives'}. Réessayez dans ${wait(d.retryAfter ?? 60)}.`,
  PAYMENT_UNCONFIRMED: 'Un paiement précédent est en cours de confirmation. Réessayez dans une minute.',
  REFERENCE_CONFLICT: 'Cette commande ne peut pas être payée ici. Contactez la boutique.',
  offline: 'Connexion perdue. Ceci se mettra à jour à son retour.',
  UPSTREAM_UNAVAILABLE: 'Le service est occupé. Réessayez dans un instant.',
  INVALID_PHONE_NUMBER: 'Saisissez un numéro mobile ghanéen, par exemple 024 123 4567.',
  phone: 'Numéro de téléphone',
  changeNumber: 'Utiliser un autre numéro',
  tryAgain: 'Réessayer',

  OTP_INVALID: "Ce code n'est pas le bon.",
  OTP_EXPIRED: 'Ce code a expiré. Demandez-en un nouveau.',
  OTP_LOCKED: (d) => (d.retryAfter ? `Trop de codes erronés pour ce numéro. Réessayez dans ${wait(d.retryAfter)}.` : 'Trop de codes erronés.'),
  HUMAN_CHECK_FAILED: "Nous n'avons pas pu vérifier que vous êtes une personne.",
  send: 'Envoyer le code',
  sending: 'Envoi du code…',
  sent: (recipient) => `Nous avons envoyé un code par SMS au ${recipient}.`,
  delivered: 'Code remis.',
  notDelivered: 'Non remis. Vérifiez le numéro.',
  code: 'Code reçu par SMS',
  verify: 'Vérifier',
  verifying: 'Vérification du code…',
  verified: (recipient) => `Numéro ${recipient} vérifié.`,
  resent: (recipient) => `Nouveau code envoyé au ${recipient}.`,
  resend: 'Envoyer un nouveau code',
  resendIn: (clock) => `Nouveau code dans ${clock}`,
  attemptsLeft: (n) => (n == 1 ? 'Encore 1 essai.' : n ? `Encore ${n} essais.` : 'Plus aucun essai.'),
  newCode: (clock) => (clock ? `Demandez un nouveau code dans ${clock}.` : 'Demandez un nouveau code.'),
  required: 'Vérifiez votre numéro de téléphone.',

  ACCOUNT_NOT_FOUND: "Aucun compte mobile money pour ce numéro.",
  INSUFFICIENT_FUNDS: 'Solde insuffisant sur le compte.',
  PAYMENT_FAILED: "Le paiement n'a pas abouti.",
  ATTEMPTS_EXHAUSTED:
    'Plus aucune tentative pour cette commande. Passez une nouvelle commande ou choisissez un autre moyen de paiement.',
  ORDER_CHANGED: 'Cette commande a changé. Rechargez la page pour voir le montant à payer.',
  PAYMENT_IN_PROGRESS: 'Cette commande attend une validation sur un autre téléphone.',
  ORDER_IN_OTHER_PAYMENT: (d) =>
    /^completed$/i.test(d.status ?? '')
      ? 'Cette commande est déjà payée.'
      : `Cette commande est en cours de paiement ${d.method == 'checkout' ? 'sur la page de paiement' : 'par mobile money'}. Terminez-le là-bas, ou passez une nouvelle commande.`,
  number: 'Numéro mobile money',
  next: 'Continuer',
  lookingUp: 'Recherche du compte…',
  confirm: (amount, name, network) => `Payer ${amount} depuis le compte ${name} (${network}) ?`,
  estimate: (total, amount, charge) => `environ ${total} (${amount} + environ ${charge} de frais du réseau)`,
  about: (total) => `environ ${total}`,
  mayCharge: 'Votre réseau peut ajouter des frais.',
  pay: (amount) => `Payer ${amount}`,
  paying: 'Envoi de la demande à votre téléphone…',
  approveTotal: (total, amount, charge, number) =>
    `Validez ${total}${charge ? ` (${amount} + ${charge} de frais)` : ''} sur ${number ? `le ${number}` : 'votre téléphone'}.`,
  sentAgo: (clock) => `Envoyée il y a ${clock}.`,
  left: (clock) => `Encore ${clock}`,
  openUnknown: 'Sa durée de validité dépend de votre réseau.',
  promptExpired: (time) => `La demande a expiré à ${time} ; le réseau doit encore le confirmer.`,
  mayBeOpen: (number) =>
    `La demande est peut-être encore ouverte sur ${number ? `le ${number}` : 'votre téléphone'} : validez-la ou refusez-la, ou patientez.`,
  completed: 'Paiement reçu. Merci !',
  declined: 'Le paiement a été refusé sur le téléphone.',
  timedOut: 'Pas encore de réponse du téléphone.',
  stillWaiting: 'Toujours en attente du téléphone.',
  wayOut: 'Mauvais numéro ? Refusez sur ce téléphone, puis utilisez-en un autre. Rien n’est débité sans accord.',
  safeToLeave: 'Vous pouvez partir : la boutique sera informée du résultat.',
  unknown: 'Le fournisseur confirme ce paiement ; la boutique vous dira comment il se termine.',
  checkAgain: 'Vérifier à nouveau',

  UNSAFE_URL: "L'adresse de la page de paiement n'est pas sûre : elle n'a pas été ouverte. Contactez la boutique.",
  label: 'Payer maintenant',
  creating: 'Ouverture du paiement…',
  open: 'Terminez le paiement sur la page de paiement.',
  failed: "Le paiement n'a pas abouti.",
  cancelled: 'Le paiement a été annulé.',
  expired: 'Le paiement a expiré. Recommencez.',
};

registerTranslation('fr', fr);
