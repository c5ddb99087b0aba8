// English words of the two elements that take a phone number: see strings.ts.

/** What the two elements that take a phone number meet and show (`<otp-verify>`, `<pay-by-mobile>`). */
export const phoneEn = {
  INVALID_PHONE_NUMBER: 'Enter a Ghanaian mobile number, like 024 123 4567.',
  changeNumber: 'Use another number',
  tryAgain: 'Try again',
};
