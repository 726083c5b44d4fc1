/** Where mail goes: a directory of .eml files, or an SMTP server (EMAIL_TRANSPORT). */
export type MailTransportConfig = { kind: 'file'; dir: string } | { kind: 'smtp'; url: string };
