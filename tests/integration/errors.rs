use aeroplane_protocol::error::ErrorCode;
