import { z } from 'zod';
import { isoDateTime, messagingEnvelope, phoneNumber } from './common.js';

/** Maximum SMS `message` length on quick send and resend. */
export const SMS_MAX_LENGTH = 1600;
/** Maximum entries in each of email `to`, `cc` and `bcc`. */
export const EMAIL_MAX_RECIPIENTS = 150;

const smsText = z.string().min(1, 'must not be empty').max(SMS_MAX_LENGTH, `must be at most ${SMS_MAX_LENGTH} characters`);

// ---- SMS ---------------------------------------------------------------------------------------

export const smsQuickRequest = z.strictObject({
  to: phoneNumber,
  from: z.string().min(1),
  type: z.string().min(1),
  message: smsText,
  isGlobal: z.boolean(),
});
export type SmsQuickRequest = z.infer<typeof smsQuickRequest>;

export const smsBulkRequest = z.strictObject({
  messages: z
    .array(
      z.strictObject({
        to: phoneNumber,
        from: z.string().min(1),
        message: z.string().min(1, 'must not be empty'),
        type: z.string().min(1),
      }),
    )
    .min(1, 'must hold at least one message'),
  isGlobal: z.boolean(),
});
export type SmsBulkRequest = z.infer<typeof smsBulkRequest>;

export const smsResendRequest = z.strictObject({ message: smsText });
export type SmsResendRequest = z.infer<typeof smsResendRequest>;

export const sentMessage = z.object({
  to: z.string(),
  from: z.string(),
  message: z.string(),
  type: z.string(),
  sequenceNo: z.string(),
  transactionId: z.string(),
});
export type SentMessage = z.infer<typeof sentMessage>;

export const smsSendResult = z.object({
  totalBatches: z.number().int().nonnegative(),
  batches: z.array(z.object({ jobId: z.string(), messages: z.array(sentMessage) })),
  senderAddress: z.string(),
});
export type SmsSendResult = z.infer<typeof smsSendResult>;

/** Quick send and resend: statusCode integer 201, a sequenceNo string. */
export const smsSendResponse = messagingEnvelope(z.literal(201), z.string(), smsSendResult);
export type SmsSendResponse = z.infer<typeof smsSendResponse>;

/** Bulk send: statusCode integer 201, sequenceNo null (each message carries its own). */
export const smsBulkResponse = messagingEnvelope(z.literal(201), z.null(), smsSendResult);
export type SmsBulkResponse = z.infer<typeof smsBulkResponse>;

export const DELIVERY_STATUSES = ['DELIVERED', 'UNDELIVERED', 'REJECTED', 'EXPIRED', 'ACCEPTED'] as const;
export const deliveryStatus = z.enum(DELIVERY_STATUSES);
export type DeliveryStatus = z.infer<typeof deliveryStatus>;

export const deliveryReceipt = z.object({
  _id: z.string(),
  clientCorrelatorId: z.string(),
  consumerId: z.string(),
  createdAt: isoDateTime,
  deliveryStatus,
  gatewayId: z.string(),
  gatewayMessageId: z.number().int(),
  ipAddress: z.string(),
  message: z.string(),
  messageId: z.string(),
  receiverAddress: z.array(z.string()),
  requestDeliveryReceipt: z.boolean(),
  senderAddress: z.string(),
  sequenceNo: z.string(),
  transactionId: z.string(),
});
export type DeliveryReceipt = z.infer<typeof deliveryReceipt>;

export const deliveryReceiptResponse = messagingEnvelope(z.literal('200'), z.string().nullable(), deliveryReceipt);
export type DeliveryReceiptResponse = z.infer<typeof deliveryReceiptResponse>;

// ---- OTP ---------------------------------------------------------------------------------------

export const PIN_TYPES = ['NUMERIC', 'ALPHANUMERIC', 'ALPHABETIC'] as const;
export const pinType = z.enum(PIN_TYPES);
export type PinType = z.infer<typeof pinType>;

export const EXPIRY_DURATIONS = ['seconds', 'minutes', 'hours'] as const;

export const otpGenerateRequest = z.strictObject({
  recipient: phoneNumber,
  from: z.string().min(1),
  message: z.string().min(1, 'must not be empty'),
  pinLength: z.number().int().min(4, 'must be at least 4').max(10, 'must be at most 10'),
  pinType,
  expiry: z.strictObject({
    amount: z.number().int().positive('must be a positive whole number'),
    duration: z.enum(EXPIRY_DURATIONS),
  }),
  maxAmountOfValidationRetries: z.number().int().min(1, 'must be at least 1'),
});
export type OtpGenerateRequest = z.infer<typeof otpGenerateRequest>;

export const otpValidateRequest = z.strictObject({
  code: z.string().min(1, 'must not be empty'),
  recipient: phoneNumber,
});
export type OtpValidateRequest = z.infer<typeof otpValidateRequest>;

/** OTP result: `code` is masked with asterisks, the real code is never returned. */
export const otpResult = z.object({ uuid: z.string(), code: z.string().regex(/^\*+$/, 'must be masked') });
export type OtpResult = z.infer<typeof otpResult>;

export const otpGenerateResponse = messagingEnvelope(z.literal('200'), z.string(), otpResult);
export type OtpGenerateResponse = z.infer<typeof otpGenerateResponse>;

export const otpValidateResponse = messagingEnvelope(z.literal('200'), z.null(), otpResult);
export type OtpValidateResponse = z.infer<typeof otpValidateResponse>;

// ---- Email -------------------------------------------------------------------------------------

const recipients = z.union([
  z.email(),
  z.array(z.email()).min(1).max(EMAIL_MAX_RECIPIENTS, `must have at most ${EMAIL_MAX_RECIPIENTS} entries`),
]);

export const emailAttachment = z.strictObject({
  filename: z.string().min(1),
  content: z.string().optional(),
  path: z.string().optional(),
  contentType: z.string().optional(),
});

export const emailSendRequest = z.strictObject({
  from: z.string().min(1),
  to: recipients,
  subject: z.string(),
  html: z.string().optional(),
  text: z.string().optional(),
  cc: recipients.optional(),
  bcc: recipients.optional(),
  replyTo: z.string().optional(),
  attachments: z.array(emailAttachment).optional(),
  tags: z.record(z.string(), z.string()).optional(),
  headers: z.record(z.string(), z.string()).optional(),
  scheduledAt: isoDateTime.optional(),
});
export type EmailSendRequest = z.infer<typeof emailSendRequest>;

export const emailSendResponse = messagingEnvelope(
  z.literal('200'),
  z.string(),
  z.union([z.null(), z.object({}).loose()]),
);
export type EmailSendResponse = z.infer<typeof emailSendResponse>;

// ---- Balance -----------------------------------------------------------------------------------

export const accountBalance = z.object({
  id: z.number().int(),
  credit: z.number(),
  intlCredit: z.number(),
  intlTotalAmount: z.string(),
  userId: z.object({
    id: z.number().int(),
    name: z.string(),
    username: z.string().nullable(),
    phone: z.string(),
  }),
});
export type AccountBalance = z.infer<typeof accountBalance>;

export const balanceResponse = messagingEnvelope(z.literal('200'), z.string().nullable(), accountBalance);
export type BalanceResponse = z.infer<typeof balanceResponse>;
