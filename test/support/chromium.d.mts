export declare const FULL_CHROMIUM_PATH: string;
export declare const HEADLESS_SHELL_PATH: string;
export declare const CHROMIUM_PATH: string;
export declare const CHROMIUM_ARGS: string[];
export declare function chromiumLaunchOptions(options?: { full?: boolean }): { executablePath: string; args: string[] };
