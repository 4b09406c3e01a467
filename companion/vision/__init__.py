"""Pixels → observations. Heavy imports (cv2, numpy) stay inside the modules that need them."""
