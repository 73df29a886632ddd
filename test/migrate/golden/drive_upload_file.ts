/**
 * drive_upload_file: Upload a file to Google Drive with optional metadata
 *
 * Written by `toolgen migrate` from test/migrate/fixtures/design/library/workspace_tools.yaml.
 * The original ran it as mock data, with no implementation, which toolgen does not run:
 * write the handler here. Until then it throws.
 *
 * The original, for reference:
 *
 *   mock_data:
 *     response_type: file_uploaded
 *     stores_in_casefile: true
 */
export interface DriveUploadFileInput {
  readonly file_name: string;
  readonly mime_type: string;
  /** File content: any JSON value */
  readonly content: unknown;
  readonly visibility: "private" | "shared";
}

export function driveUploadFile(_input: DriveUploadFileInput): { file_id?: string; web_view_link?: string } {
  throw new Error("drive_upload_file is not implemented yet: toolgen migrate wrote a stub (the original was mock data, with no implementation)");
}
