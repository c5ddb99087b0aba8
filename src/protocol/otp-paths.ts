// The paths `<otp-verify>` calls, relative to the mount path (see paths.ts).

export const otpSendPath = '/otp/send';
export const otpVerifyPath = '/otp/verify';
export const otpDeliveryPath = (otpId: string) => `/otp/${encodeURIComponent(otpId)}/delivery`;
