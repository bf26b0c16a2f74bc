"""pyhalide.tables"""
