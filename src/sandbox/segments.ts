/**
 * SMS segment counting, for the sandbox's credit (DESIGN: one credit per segment).
 *
 * A message written only in the GSM 03.38 alphabet travels as GSM-7: 160 septets in a single SMS, 153 per
 * part once it is split. Characters of the GSM-7 extension table (`^ { } \ [ ~ ] | €` and form feed) take
 * two septets each, as on a real network. Any other character makes the whole message UCS-2: 70 UTF-16
 * code units in a single SMS, 67 per part (so a character outside the Basic Multilingual Plane, such as
 * most emoji, counts twice).
 */

/** The GSM 03.38 basic character set (without the escape character itself). */
const GSM7_BASIC = new Set(
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
    '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà',
);

/** The GSM 03.38 extension table: each costs an escape septet plus its own. */
const GSM7_EXTENSION = new Set('\f^{}\\[~]|€');

/** Encoding an SMS travels in. */
export type SmsEncoding = 'GSM-7' | 'UCS-2';

/** How a message is counted on the network. */
export interface SegmentCount {
  encoding: SmsEncoding;
  /** Septets (GSM-7) or UTF-16 code units (UCS-2). */
  units: number;
  /** Number of SMS parts, at least 1. */
  segments: number;
}

/** Septets of `text` in GSM-7, or null when a character is outside the GSM-7 alphabet. */
function gsm7Septets(text: string): number | null {
  let septets = 0;
  for (const char of text) {
    if (GSM7_BASIC.has(char)) septets += 1;
    else if (GSM7_EXTENSION.has(char)) septets += 2;
    else return null;
  }
  return septets;
}

/** Counts the segments (and so the credits) of one SMS. */
export function countSegments(text: string): SegmentCount {
  const septets = gsm7Septets(text);
  if (septets !== null) {
    return { encoding: 'GSM-7', units: septets, segments: septets <= 160 ? 1 : Math.ceil(septets / 153) };
  }
  const units = text.length;
  return { encoding: 'UCS-2', units, segments: units <= 70 ? 1 : Math.ceil(units / 67) };
}
